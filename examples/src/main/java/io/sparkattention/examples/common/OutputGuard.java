package io.sparkattention.examples.common;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The command line's one output-safety rule, checked before any Spark work starts, for every
 * command that writes (an output is replaced as a whole, so nothing that holds the user's files
 * may be one):
 * <ol>
 *   <li>the output is not a filesystem root, the current directory or an ancestor of it, the
 *       home directory or an ancestor of it;</li>
 *   <li>it is not an input, does not contain one and does not lie inside one;</li>
 *   <li>it is not a symbolic link;</li>
 *   <li>its parent directory exists and a file can be created in it (a missing parent is not
 *       created: a typo in a path should not build a tree);</li>
 *   <li>an existing output is replaced only with {@code --overwrite}, and only when it is an
 *       earlier output of this tool or an empty directory ({@link OutputKind}).</li>
 * </ol>
 * Paths are compared as the file system resolves them: symbolic links, {@code .} and {@code ..}
 * resolved. Outputs on other file systems ({@code hdfs://}, {@code s3a://}) are checked by
 * {@link Outputs#attach} once Spark runs.
 */
public final class OutputGuard {

    /** A URI with a scheme other than {@code file:}, which this guard does not check. */
    private static final Pattern REMOTE = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*://.*");

    private final String option;
    private final String given;
    private final OutputKind kind;
    private final Map<String, String> inputs = new LinkedHashMap<>();
    private boolean overwrite;

    private OutputGuard(String option, String given, OutputKind kind) {
        this.option = option;
        this.given = given;
        this.kind = kind;
    }

    /**
     * A guard for one output.
     *
     * @param option the option that names it, e.g. {@code --output}
     * @param given  the path as the user gave it
     * @param kind   what the command writes there
     */
    public static OutputGuard of(String option, String given, OutputKind kind) {
        return new OutputGuard(option, given, kind);
    }

    /** Whether {@code --overwrite} was given. */
    public OutputGuard overwrite(boolean value) {
        overwrite = value;
        return this;
    }

    /** An input of the run (a file or directory), which the output must stay clear of; null is ignored. */
    public OutputGuard input(String inputOption, String path) {
        if (path != null && !isRemote(path)) {
            inputs.put(inputOption + " " + path, path);
        }
        return this;
    }

    /** Whether a path names another file system than the local one. */
    public static boolean isRemote(String path) {
        return REMOTE.matcher(path).matches() && !path.startsWith("file:");
    }

    /**
     * Checks the rule.
     *
     * @return the output's absolute path, its parent's symbolic links resolved; null for a remote output
     * @throws BadInputException naming the option, the path and what is wrong
     */
    public Path check() {
        if (given == null || given.isBlank()) {
            throw new BadInputException(option + ": the path is empty");
        }
        if (isRemote(given)) {
            return null;
        }
        Path target = resolve(given);
        String name = target.equals(Paths.get(given)) ? option + " " + given : option + " " + given + " (" + target + ")";
        refuseProtected(target, name);
        for (Map.Entry<String, String> input : inputs.entrySet()) {
            Path in = resolveFully(input.getValue());
            if (target.equals(in)) {
                throw new BadInputException(name + " is the input (" + input.getKey() + "): choose another output");
            }
            if (in.startsWith(target)) {
                throw new BadInputException(name + " contains the input (" + input.getKey() + "): choose another output");
            }
            if (target.startsWith(in)) {
                throw new BadInputException(name + " lies inside the input (" + input.getKey()
                    + "): choose an output outside it");
            }
        }
        if (Files.isSymbolicLink(target)) {
            throw new BadInputException(name + " is a symbolic link: give the path of a new output, or of an earlier "
                + "output itself");
        }
        checkParent(target, name);
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            if (!overwrite) {
                throw new BadInputException(name + " already exists (--overwrite replaces an earlier output of "
                    + "spark-attention)");
            }
            String why = kind.whyNotOurs(target);
            if (why != null) {
                throw new BadInputException(name + " exists and is not replaced: " + why
                    + "; --overwrite replaces only an earlier output of spark-attention");
            }
        }
        return target;
    }

    /** Roots, the current directory, the home directory, and their ancestors. */
    private static void refuseProtected(Path target, String name) {
        if (target.getParent() == null || isMountPoint(target)) {
            throw new BadInputException(name + " is a filesystem root: choose a new directory or file for the output");
        }
        Path cwd = resolve(System.getProperty("user.dir"));
        if (target.equals(cwd)) {
            throw new BadInputException(name + " is the current directory: an output is replaced as a whole, so "
                + "give it a new name (e.g. " + option(name) + " out)");
        }
        if (cwd.startsWith(target)) {
            throw new BadInputException(name + " contains the current directory: choose a new directory or file for "
                + "the output");
        }
        String home = System.getProperty("user.home");
        if (home != null && !home.isBlank()) {
            Path h = resolve(home);
            if (target.equals(h)) {
                throw new BadInputException(name + " is the home directory: choose a new directory or file for the output");
            }
            if (h.startsWith(target)) {
                throw new BadInputException(name + " contains the home directory: choose a new directory or file for "
                    + "the output");
            }
        }
    }

    private static String option(String name) {
        int space = name.indexOf(' ');
        return space < 0 ? name : name.substring(0, space);
    }

    /** The parent exists, is a directory, and a file can be created in it. */
    private static void checkParent(Path target, String name) {
        Path parent = target.getParent();
        Path existing = parent;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing != null && !Files.isDirectory(existing)) {
            throw new BadInputException(name + ": " + existing + " is a file, not a directory");
        }
        if (!existing.equals(parent)) {
            throw new BadInputException(name + ": directory " + parent + " does not exist (create it first)");
        }
        try {
            Path probe = Files.createTempFile(parent, ".spark-attention-probe-", "");
            Files.delete(probe);
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            throw new BadInputException(name + ": cannot create files in directory " + parent + " ("
                + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()) + ")");
        }
    }

    /** A directory on another file system than its parent's: the root of a mount. */
    private static boolean isMountPoint(Path p) {
        if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try {
            FileStore own = Files.getFileStore(p);
            FileStore parent = Files.getFileStore(p.getParent());
            return !own.equals(parent);
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The absolute path as the file system resolves it: the longest existing prefix by its real
     * path (symbolic links, {@code .} and {@code ..} resolved), the rest appended and normalised.
     * The last name is kept as it is, so a symbolic link output stays visible as one.
     */
    public static Path resolve(String given) {
        Path abs;
        try {
            abs = Paths.get(given.startsWith("file:") ? given.substring("file:".length()).replaceFirst("^//", "")
                : given).toAbsolutePath();
        } catch (InvalidPathException e) {
            throw new BadInputException(given + ": not a valid path (" + e.getReason() + ")");
        }
        Path normal = abs.normalize();
        if (normal.getParent() == null) {
            return normal;
        }
        Path last = normal.getFileName();
        if (!abs.getFileName().toString().equals("..") && !abs.getFileName().toString().equals(".")) {
            return realPrefix(abs.getParent()).resolve(last);
        }
        Path real = realPrefix(abs);
        return real.getParent() == null ? real : real.getParent().resolve(real.getFileName());
    }

    /** An input's path with every symbolic link resolved, its last name too. */
    private static Path resolveFully(String given) {
        Path p = resolve(given);
        try {
            return Files.exists(p) ? p.toRealPath() : p;
        } catch (IOException e) {
            return p;
        }
    }

    private static Path realPrefix(Path abs) {
        Path existing = abs;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return abs.normalize();
        }
        try {
            Path real = existing.toRealPath();
            return real.resolve(existing.relativize(abs)).normalize();
        } catch (IOException e) {
            return abs.normalize();
        }
    }
}
