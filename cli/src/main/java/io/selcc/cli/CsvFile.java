package io.selcc.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code --csv FILE}: a header row, then one row per run and transaction type (RFC 4180 quoting). A
 * file that exists with the same header gets the new rows appended, so one file collects a sweep of
 * runs; a file with another header is refused before the run ({@link #whyNotWritable}).
 */
public final class CsvFile {
    private CsvFile() {
    }

    /** Why {@code path} cannot take rows under {@code header}, or null if it can. */
    public static String whyNotWritable(Path path, List<String> header) {
        String problem = JsonFile.whyNotWritable(path);
        if (problem != null || !Files.exists(path)) {
            return problem;
        }
        try {
            List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
            if (!lines.isEmpty() && !lines.get(0).equals(line(List.copyOf(header)))) {
                return "holds rows with another header (another benchmark, or another version): give a new file";
            }
            return null;
        } catch (IOException e) {
            return "cannot be read: " + e.getMessage();
        }
    }

    /**
     * Appends {@code rows} to {@code path}, writing {@code header} first if the file is new or empty.
     *
     * @throws CliFailure naming the file when it cannot be written
     */
    public static void append(Path path, List<String> header, List<List<Object>> rows) {
        StringBuilder text = new StringBuilder();
        try {
            if (!Files.exists(path) || Files.size(path) == 0) {
                text.append(line(List.copyOf(header))).append('\n');
            } else if (!endsWithNewline(path)) {
                text.append('\n'); // a file cut short or edited by hand: the first row starts a line of its own
            }
            for (List<Object> row : rows) {
                if (row.size() != header.size()) {
                    throw new IllegalArgumentException("a row of " + row.size() + " fields under a header of " + header.size());
                }
                text.append(line(row)).append('\n');
            }
            Files.writeString(path, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new CliFailure("cannot write CSV: file=" + path + " (" + e + ")", e);
        }
    }

    /** Every digit a double carries (theta 0.9999 must not read 1.000), without exponent or locale. */
    private static String plain(double d) {
        return Double.isFinite(d) ? java.math.BigDecimal.valueOf(d).stripTrailingZeros().toPlainString() : String.valueOf(d);
    }

    private static boolean endsWithNewline(Path path) throws IOException {
        try (java.nio.channels.SeekableByteChannel channel = Files.newByteChannel(path)) {
            java.nio.ByteBuffer last = java.nio.ByteBuffer.allocate(1);
            channel.position(channel.size() - 1).read(last);
            return last.get(0) == '\n';
        }
    }

    private static String line(List<?> fields) {
        return fields.stream().map(CsvFile::field).collect(Collectors.joining(","));
    }

    private static String field(Object value) {
        String text = switch (value) {
            case null -> "";
            case Double d -> plain(d);
            case Float f -> plain(f.doubleValue());
            default -> value.toString();
        };
        if (text.indexOf(',') >= 0 || text.indexOf('"') >= 0 || text.indexOf('\n') >= 0 || text.indexOf('\r') >= 0) {
            return '"' + text.replace("\"", "\"\"") + '"';
        }
        return text;
    }
}
