package io.sparkattention.examples.common;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What {@code --overwrite} replaces, said on stderr as it happens: the earlier output's path and,
 * for a local output directory, the files in it its writer did not write (a file the user put
 * there), which go with it. An output directory's marker ({@link OutputKind#MARKER}) lists the
 * files the command wrote, relative to the directory, so that these are told apart; a marker
 * without the list (an output of an earlier version) names the directory only.
 */
final class ReplacedOutput {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The marker's list of the files the command wrote. */
    static final String FILES = "files";
    /** Foreign files named in the notice; more are counted. */
    static final int NAMED = 5;

    private ReplacedOutput() {
    }

    /** The marker's text: the tool, the command that wrote the directory and the files it wrote. */
    static String markerText(String command, Path dir) throws IOException {
        ObjectNode marker = JSON.createObjectNode().put("tool", "spark-attention").put("command", command);
        if (dir != null) {
            files(dir).forEach(marker.putArray(FILES)::add);
        }
        return JSON.writeValueAsString(marker) + "\n";
    }

    /**
     * The notice for replacing {@code output}, an earlier output that exists.
     *
     * @param command the command replacing it
     * @param option  its option, e.g. {@code --output}
     * @param given   the path as the user gave it
     * @param local   its local path, or null on another file system
     */
    static String notice(String command, String option, String given, Path local) {
        String line = "spark-attention " + command + ": --overwrite: replacing " + option + " " + given;
        if (local == null || !Files.isDirectory(local)) {
            return line;
        }
        List<String> foreign = foreign(local);
        if (foreign.isEmpty()) {
            return line + " (an earlier output)";
        }
        String named = String.join(", ", foreign.subList(0, Math.min(NAMED, foreign.size())))
            + (foreign.size() > NAMED ? " and " + (foreign.size() - NAMED) + " more" : "");
        return line + ", with " + foreign.size() + " file" + (foreign.size() == 1 ? "" : "s") + " spark-attention "
            + "did not write in it: " + named;
    }

    /** The files in an earlier output directory its marker does not list; none when it lists nothing. */
    static List<String> foreign(Path dir) {
        try {
            JsonNode marker = JSON.readTree(dir.resolve(OutputKind.MARKER).toFile());
            JsonNode listed = marker == null ? null : marker.get(FILES);
            if (listed == null || !listed.isArray()) {
                return List.of();
            }
            Set<String> written = new HashSet<>();
            listed.forEach(f -> written.add(f.asText()));
            return files(dir).stream().filter(f -> !written.contains(f)).collect(Collectors.toList());
        } catch (IOException | RuntimeException e) {
            // An unreadable marker: the notice names the directory only.
            return List.of();
        }
    }

    /** The regular files under {@code dir}, relative to it with / between names, sorted; the marker left out. */
    static List<String> files(Path dir) throws IOException {
        List<String> out = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.filter(Files::isRegularFile).forEach(p -> out.add(dir.relativize(p).toString().replace('\\', '/')));
        }
        out.remove(OutputKind.MARKER);
        out.sort(null);
        return out;
    }
}
