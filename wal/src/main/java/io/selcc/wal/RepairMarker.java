package io.selcc.wal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What the repair of a crashed compute node of another process settled about the numbers it drew
 * ({@link Wal#settleCrashed}), kept beside the logs as {@code repaired-node-<N>} so that every later
 * reader of the logs (a later repair, a recovery) sees the logs as that repair did:
 *
 * <ul>
 *   <li>{@code takenThrough}: the highest record of node N's log the repair took. A record of node N
 *       above it was appended after the repair read the log (a fenced process that still ran): it never
 *       committed for anyone, and is ignored.</li>
 *   <li>{@code voids}: numbers up to {@code drawnThrough} (the commit counter once node N was fenced) that
 *       no log held once every other counting node had made its numbers up to there durable: drawn and never
 *       appended (node N died between its draw and its append, or one of its late appends). No transaction
 *       holds them, so the dense prefix recovery replays passes them.</li>
 * </ul>
 *
 * A text file of {@code key=value} lines, written to a temporary name, forced, renamed and its directory
 * forced, before the node's durability word is set out of the minimum.
 *
 * @param node           the crashed compute node
 * @param takenThrough   the highest sequence number of the node's log the repair took (0 if none)
 * @param forcedThrough  the node's durability word's number when it was fenced: its numbers up to it were forced
 * @param drawnThrough   the commit counter after the fence: no number the node drew is above it
 * @param voids          numbers in (forcedThrough, drawnThrough] in no log, ascending
 */
record RepairMarker(int node, long takenThrough, long forcedThrough, long drawnThrough, long[] voids) {
    private static final String PREFIX = "repaired-node-";

    /** Whether {@code sequence} is among {@link #voids}. */
    boolean isVoid(long sequence) {
        return Arrays.binarySearch(voids, sequence) >= 0;
    }

    /**
     * Whether a record of this node numbered {@code sequence} was appended after the repair read the log:
     * above what it took, and at most what was drawn when it was fenced (a fenced process draws nothing
     * more), so records a later life of the node id could log are never taken for late.
     */
    boolean late(long sequence) {
        return sequence > takenThrough && sequence <= drawnThrough;
    }

    /** Writes this marker into the log directory {@code directory}, durably, through {@code forcing}. */
    void write(Path directory, FileForcing forcing) {
        String text = "# the repair of compute node " + node + " settled the numbers it drew (see RepairMarker)\n"
            + "node=" + node + "\ntakenThrough=" + takenThrough + "\nforcedThrough=" + forcedThrough
            + "\ndrawnThrough=" + drawnThrough + "\nvoid=" + Arrays.stream(voids).mapToObj(Long::toString)
            .collect(Collectors.joining(",")) + "\n";
        Path file = directory.resolve(PREFIX + node);
        Path partial = directory.resolve(PREFIX + node + ".tmp");
        try {
            Files.writeString(partial, text, StandardCharsets.US_ASCII);
            forcing.force(partial, true);
            Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            forcing.force(directory, true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the repair marker " + file, e);
        }
    }

    /**
     * Every marker in the log directory {@code directory}, by node (none if it does not exist).
     *
     * @throws IllegalStateException if a marker cannot be read (the message names it)
     */
    static Map<Integer, RepairMarker> readAll(Path directory) {
        Map<Integer, RepairMarker> markers = new HashMap<>();
        if (!Files.isDirectory(directory)) {
            return markers;
        }
        List<Path> files;
        try (Stream<Path> entries = Files.list(directory)) {
            files = entries.filter(p -> p.getFileName().toString().startsWith(PREFIX)
                && !p.getFileName().toString().endsWith(".tmp")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the repair markers in " + directory, e);
        }
        for (Path file : files) {
            RepairMarker marker = read(file);
            markers.put(marker.node(), marker);
        }
        return markers;
    }

    private static RepairMarker read(Path file) {
        Map<String, String> values = new HashMap<>();
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
                int at = line.indexOf('=');
                if (!line.startsWith("#") && at > 0) {
                    values.put(line.substring(0, at), line.substring(at + 1));
                }
            }
            String voids = values.get("void");
            return new RepairMarker(Integer.parseInt(values.get("node")), Long.parseLong(values.get("takenThrough")),
                Long.parseLong(values.get("forcedThrough")), Long.parseLong(values.get("drawnThrough")),
                voids == null || voids.isEmpty() ? new long[0]
                    : Arrays.stream(voids.split(",")).mapToLong(Long::parseLong).sorted().toArray());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the repair marker " + file, e);
        } catch (RuntimeException e) {
            throw new IllegalStateException("a damaged repair marker: file=" + file + " (" + e + ")", e);
        }
    }

    /** The node whose log is {@code nodeDirectory} ({@code node-N}), or -1. */
    static int nodeOf(Path nodeDirectory) {
        String name = nodeDirectory.getFileName().toString();
        try {
            return name.startsWith("node-") ? Integer.parseInt(name.substring(5)) : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
