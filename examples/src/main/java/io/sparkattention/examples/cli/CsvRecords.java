package io.sparkattention.examples.cli;

import org.apache.hadoop.fs.Path;

import java.io.BufferedReader;
import java.io.IOException;
import java.util.List;
import java.util.function.Predicate;

/**
 * The records of a CSV input as RFC 4180 writes them (Python's {@code csv} module, spreadsheets),
 * read on the driver without Spark to name a record by its line: a field in double quotes may
 * hold commas, line breaks and quotes written twice ({@code ""}). Each file opens with a header
 * record; blank lines between records are skipped, as Spark's reader skips them. Spark reads the
 * same files with the options of {@link #SPARK_OPTIONS}, so its n-th row of a file is the n-th
 * record after the header here. Lines are numbered from 1 in each file, as an editor shows them;
 * a record is named by the line it starts on.
 */
final class CsvRecords {

    /** Spark's CSV reader options for RFC 4180: a header, {@code "} quotes and escapes, records over lines. */
    static final List<String[]> SPARK_OPTIONS = List.of(new String[] {"header", "true"},
        new String[] {"quote", "\""}, new String[] {"escape", "\""}, new String[] {"multiLine", "true"});

    /** One record: where it starts, its place among the file's data records (from 0) and its fields. */
    static final class Record {
        final Path file;
        final long line;
        /** Place among the file's records after the header, from 0; -1 for the header. */
        final long index;
        final int fields;
        /** Whether the file ends inside a quoted field of this record. */
        final boolean unclosed;

        Record(Path file, long line, long index, int fields, boolean unclosed) {
            this.file = file;
            this.line = line;
            this.index = index;
            this.fields = fields;
            this.unclosed = unclosed;
        }
    }

    private final InputTextFiles files;

    private CsvRecords(InputTextFiles files) {
        this.files = files;
    }

    /** The input's data files; {@link InputFiles#inspect} has checked them. */
    static CsvRecords of(String input) {
        return new CsvRecords(InputTextFiles.of(input));
    }

    /** The line of data record {@code index} (from 0) of the file Spark names {@code sparkPath}, or null. */
    Record at(String sparkPath, long index) {
        return find(sparkPath, r -> r.index == index);
    }

    /**
     * The first malformed record, in the file Spark names (every file when null): one whose field
     * count differs from its header's, or one a quoted field leaves open at the end of the file;
     * null when there is none.
     */
    String malformed(String sparkPath) {
        int[] header = {0};
        Record bad = find(sparkPath, r -> {
            if (r.index < 0) {
                header[0] = r.fields;
                return r.unclosed;
            }
            return r.unclosed || r.fields != header[0];
        });
        if (bad == null) {
            return null;
        }
        String what = bad.unclosed ? "a quoted field opens here and is never closed (a \" inside a quoted field is "
            + "written twice: \"\")" : "it has " + bad.fields + " fields, the header " + header[0];
        return "--input " + files.input + ": malformed CSV record on " + where(bad) + " (" + what + ")";
    }

    /** A record's place for messages: "line N", and the file's name first for a directory. */
    String where(Record record) {
        return files.where(record.file, record.line);
    }

    /** The first record {@code wanted} accepts, header included, or null (also when a file cannot be read). */
    private Record find(String sparkPath, Predicate<Record> wanted) {
        for (Path file : files.files) {
            if (!files.isNamed(file, sparkPath)) {
                continue;
            }
            try (BufferedReader reader = files.open(file)) {
                Record found = scan(file, reader, wanted);
                if (found != null) {
                    return found;
                }
            } catch (IOException e) {
                return null;
            }
        }
        return null;
    }

    /** Scans one file's records in order, stopping at the first {@code wanted} accepts. */
    private static Record scan(Path file, BufferedReader in, Predicate<Record> wanted) throws IOException {
        long line = 1;
        long index = -1;
        int c = in.read();
        while (c != -1) {
            if (c == '\n' || c == '\r') {
                // A blank line between records.
                line += c == '\n' || loneCr(in) ? 1 : 0;
                c = in.read();
                continue;
            }
            long start = line;
            int fields = 1;
            boolean quoted = false;
            boolean fieldStart = true;
            while (c != -1 && (quoted || (c != '\n' && c != '\r'))) {
                if (quoted) {
                    if (c == '"') {
                        in.mark(1);
                        if (in.read() != '"') {
                            quoted = false;
                            in.reset();
                        }
                    } else if (c == '\n' || c == '\r' && loneCr(in)) {
                        line++;
                    }
                } else if (c == ',') {
                    fields++;
                    fieldStart = true;
                    c = in.read();
                    continue;
                } else if (c == '"' && fieldStart) {
                    quoted = true;
                }
                fieldStart = false;
                c = in.read();
            }
            Record record = new Record(file, start, index++, fields, quoted);
            if (wanted.test(record)) {
                return record;
            }
            if (c != -1) {
                line += c == '\n' || loneCr(in) ? 1 : 0;
                c = in.read();
            }
        }
        return null;
    }

    /**
     * After a {@code \r}: whether it ends a line by itself (no {@code \n} follows; a CRLF's line is
     * counted at its {@code \n}). Consumes nothing.
     */
    private static boolean loneCr(BufferedReader in) throws IOException {
        in.mark(1);
        boolean lf = in.read() == '\n';
        in.reset();
        return !lf;
    }
}
