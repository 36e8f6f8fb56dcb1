package io.sparkattention.examples.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Markdown page of the project (README.md or a page of docs/) and its fenced code blocks, in page order.
 *
 * <p>A block's info string is its language and optional flags: {@code java}, {@code bash}, {@code python},
 * {@code text} (a diagram or printed output, not code), and {@code no-test} after the language for a block a
 * test cannot run (the demo itself, a cluster, {@code mvn verify}). An HTML comment {@code <!-- given: ... -->}
 * right before a Java block holds the statements that make the names the block uses (data frames, paths); one
 * right after it, {@code <!-- then: ... -->}, statements that check what the block made. Both are invisible on
 * the rendered page and compiled with the block.
 */
final class DocPage {

    /** The languages a block may have. */
    static final List<String> LANGUAGES = List.of("java", "bash", "python", "text");
    /** The flag that marks a block the tests do not run. */
    static final String NO_TEST = "no-test";

    private static final Pattern FENCE = Pattern.compile("(?m)^```([^\\n]*)\\n(.*?)^```[ \\t]*$", Pattern.DOTALL);
    private static final Pattern GIVEN = Pattern.compile("<!--\\s*given:((?:(?!<!--).)*?)-->\\s*$", Pattern.DOTALL);
    private static final Pattern THEN = Pattern.compile("^\\s*<!--\\s*then:(.*?)-->", Pattern.DOTALL);

    /** One fenced block. */
    static final class Block {
        final DocPage page;
        final int line;
        final String language;
        final List<String> flags;
        final String code;
        final String given;
        final String then;

        Block(DocPage page, int line, String language, List<String> flags, String code, String given, String then) {
            this.page = page;
            this.line = line;
            this.language = language;
            this.flags = flags;
            this.code = code;
            this.given = given;
            this.then = then;
        }

        boolean runs() {
            return !language.equals("text") && !flags.contains(NO_TEST);
        }

        @Override
        public String toString() {
            return page.name + ":" + line + " (" + language + (flags.isEmpty() ? "" : " " + String.join(" ", flags))
                + ")";
        }
    }

    /** The page's path from the repository's root, e.g. {@code docs/stages.md}. */
    final String name;
    final List<Block> blocks = new ArrayList<>();

    private DocPage(String name, String text) {
        this.name = name;
        Matcher m = FENCE.matcher(text);
        while (m.find()) {
            String[] info = m.group(1).trim().split("\\s+");
            String before = text.substring(0, m.start());
            String after = text.substring(m.end());
            Matcher given = GIVEN.matcher(before);
            Matcher then = THEN.matcher(after);
            int line = (int) before.chars().filter(c -> c == '\n').count() + 1;
            blocks.add(new Block(this, line, info[0], List.of(info).subList(1, info.length), m.group(2),
                given.find() ? given.group(1).trim() : "", then.find() ? then.group(1).trim() : ""));
        }
    }

    static DocPage read(Path root, String name) throws IOException {
        return new DocPage(name, Files.readString(root.resolve(name)));
    }

    /** README.md and every page of docs/, by name. */
    static List<DocPage> all(Path root) throws IOException {
        List<DocPage> pages = new ArrayList<>();
        pages.add(read(root, "README.md"));
        try (var files = Files.list(root.resolve("docs"))) {
            for (Path p : files.filter(f -> f.getFileName().toString().endsWith(".md")).sorted().toList()) {
                pages.add(read(root, "docs/" + p.getFileName()));
            }
        }
        return pages;
    }

    /** The repository's root, from a test JVM that runs in a module's directory or in the root. */
    static Path root() {
        Path here = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        return Files.isRegularFile(here.resolve("README.md")) && Files.isDirectory(here.resolve("docs")) ? here
            : here.getParent();
    }
}
