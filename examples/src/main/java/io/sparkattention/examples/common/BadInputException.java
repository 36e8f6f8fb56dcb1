package io.sparkattention.examples.common;

/** A problem with what the user gave the command line: reported in one line, exit code 2. */
public final class BadInputException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public BadInputException(String message) {
        super(message);
    }

    public BadInputException(String message, Throwable cause) {
        super(message, cause);
    }
}
