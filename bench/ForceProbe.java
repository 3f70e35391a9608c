import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * How long an fdatasync of a memory-mapped log file takes on this disk, outside the engine: writes
 * BYTES per force into a sparse 256 MiB file through a mapping (as Chronicle Queue appends), in one
 * region or in three (data, a header word at the start, an index word: Chronicle's pattern), and forces
 * after each batch, 2,000 times. Prints p10/p50/p90/p99 in microseconds.
 *
 *   java bench/ForceProbe.java REGIONS BYTES [DIRECTORY]      e.g. java bench/ForceProbe.java 3 30000 /work
 */
public class ForceProbe {
    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: java bench/ForceProbe.java REGIONS(1|3) BYTES [DIRECTORY]");
            System.exit(2);
        }
        int regions = Integer.parseInt(args[0]);
        int bytes = Integer.parseInt(args[1]);
        Path file = Path.of(args.length > 2 ? args[2] : ".").resolve("force-probe.dat");
        Files.deleteIfExists(file);
        long size = 256L << 20;
        int forces = 2_000;
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(size);
            MappedByteBuffer map = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, size);
            FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
            long[] nanos = new long[forces];
            int position = 2 << 20;
            for (int i = 0; i < forces; i++) {
                for (int j = 0; j < bytes; j++) {
                    map.put(position++, (byte) 1);
                }
                if (regions > 1) {
                    map.putLong(0, position);
                    map.putLong((1 << 20) + 8 * (i % 512), position);
                }
                long start = System.nanoTime();
                channel.force(false);
                nanos[i] = System.nanoTime() - start;
            }
            Arrays.sort(nanos);
            System.out.printf("regions=%d bytes=%d p10=%d p50=%d p90=%d p99=%d us%n", regions, bytes,
                nanos[forces / 10] / 1000, nanos[forces / 2] / 1000, nanos[forces * 9 / 10] / 1000, nanos[forces * 99 / 100] / 1000);
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
