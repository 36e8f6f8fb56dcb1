package io.sparkattention.io;

import java.io.IOException;

/**
 * A tensor file whose content is malformed, or does not hold what the caller asked for (a missing
 * tensor, a tensor of the wrong dtype or shape).
 *
 * <p>The message always starts with the file ({@link #source()}) and, when one tensor is at fault,
 * names it ({@link #tensor()}), so that a one-line error on a command line is enough to find the
 * problem. It is an {@link IOException} because a bad file is an input problem, like a missing one.
 */
public class TensorFormatException extends IOException {

    private static final long serialVersionUID = 1L;

    /** The file (or other source) at fault, as shown to the user. */
    private final String source;
    /** The tensor at fault, or null when the problem concerns the whole file. */
    private final String tensor;
    /** What is wrong, without the file and tensor names. */
    private final String problem;

    /**
     * A problem with one tensor of a file, or with the whole file when {@code tensor} is null.
     *
     * @param source  the file (or other source) being read, as shown to the user
     * @param tensor  the tensor concerned, or null when the problem is not about one tensor
     * @param problem what is wrong, without the file and tensor names
     */
    public TensorFormatException(String source, String tensor, String problem) {
        this(source, tensor, problem, null);
    }

    /**
     * A problem with one tensor of a file, caused by a lower-level exception.
     *
     * @param source  the file (or other source) being read, as shown to the user
     * @param tensor  the tensor concerned, or null when the problem is not about one tensor
     * @param problem what is wrong, without the file and tensor names
     * @param cause   the underlying exception, or null
     */
    public TensorFormatException(String source, String tensor, String problem, Throwable cause) {
        super(message(source, tensor, problem), cause);
        this.source = source;
        this.tensor = tensor;
        this.problem = problem;
    }

    private static String message(String source, String tensor, String problem) {
        return tensor == null
            ? source + ": " + problem
            : source + ": tensor '" + tensor + "': " + problem;
    }

    /**
     * The file (or other source) whose content is at fault.
     *
     * @return the source's name as shown to the user
     */
    public String source() {
        return source;
    }

    /**
     * The tensor at fault.
     *
     * @return the tensor's full name, or null when the problem concerns the whole file
     */
    public String tensor() {
        return tensor;
    }

    /**
     * What is wrong, without the file and tensor names.
     *
     * @return the problem's description
     */
    public String problem() {
        return problem;
    }
}
