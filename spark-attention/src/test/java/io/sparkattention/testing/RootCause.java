package io.sparkattention.testing;

/** What a failed Spark job says at the bottom of its cause chain: the row-level error the code threw. */
public final class RootCause {

    private RootCause() {
    }

    /** The message of the innermost cause of {@code e}. */
    public static String message(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage();
    }
}
