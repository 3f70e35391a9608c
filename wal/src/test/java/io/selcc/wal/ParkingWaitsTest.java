package io.selcc.wal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A terminal parked on a round trip, a latch or a durability wait does not hold its carrier (issue 27).
 * Each case runs {@link ParkedTerminals} in a child JVM whose virtual threads share one carrier; 100
 * terminals progress there only if every wait they meet lets the carrier go. A hang is the failure
 * mode of a wait that spins, so the child's exit code decides, and the timeout turns a hang into a
 * failure.
 *
 * <p>Shown to fail (each case hung until the child's timeout, with "single carrier" as its only output):
 * with {@code Thread.onSpinWait()} instead of the yield-or-park turn in the virtual-thread branch of
 * {@code Waits.untilDeadline} (the wait for a round trip's reply), the round-trips and the latches
 * cases, the first terminal at the reply gate spinning on the only carrier; with the spin in place of
 * the yield only ({@code Waits} still parks every 64th turn), the round-trips case with exit 1 instead
 * of a hang (the gate opened 8,019 of 8,101 times with terminals parked elsewhere: a spinner kept the
 * others off the carrier until it parked); with the log group's
 * {@code changed.awaitUninterruptibly()} in {@code Wal.awaitWatermark} replaced by a spin on the
 * watermark (lock released), the durability case, one commit in its wait and 99 never run.
 */
class ParkingWaitsTest {
    private static final long CHILD_TIMEOUT_SECONDS = 120;

    @Test
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void terminalsWaitingForRoundTripsShareOneCarrier() throws Exception {
        String output = runChild(List.of("roundTrips"));
        assertTrue(output.contains("at most " + ParkedTerminals.TERMINALS + " terminals waited"), output);
    }

    @Test
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void terminalsParkedOnALatchWhoseHolderWaitsForARoundTripShareOneCarrier() throws Exception {
        String output = runChild(List.of("latches"));
        assertTrue(output.contains("gate opened"), output);
    }

    @Test
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void commitsWaitingForTheirForceShareOneCarrier(@TempDir Path directory) throws Exception {
        String output = runChild(List.of("durability", directory.toString()));
        assertTrue(output.contains("waited for their force at once"), output);
    }

    /** Runs the child with {@code args}; its output, once it exited 0. */
    private static String runChild(List<String> args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.addAll(List.of("-Xmx512m", "--enable-native-access=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
            "-Dchronicle.analytics.disable=true", "-Dchronicle.disk.monitor.disable=true",
            "-Djdk.virtualThreadScheduler.parallelism=1", "-Djdk.virtualThreadScheduler.maxPoolSize=1",
            "-cp", System.getProperty("java.class.path"), ParkedTerminals.class.getName()));
        command.addAll(args);
        Process child = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.PIPE).start();
        // Drained on its own thread so a full pipe cannot stall the child.
        StringBuilder output = new StringBuilder();
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try {
                String text = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                synchronized (output) {
                    output.append(text);
                }
            } catch (IOException e) {
                synchronized (output) {
                    output.append("(reading the child's output failed: ").append(e).append(')');
                }
            }
        });
        if (!child.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            child.descendants().forEach(ProcessHandle::destroyForcibly);
            child.destroyForcibly();
            child.waitFor();
            reader.join();
            fail("the child hung (a wait holds the only carrier?) after " + CHILD_TIMEOUT_SECONDS + " s; its output:\n"
                + output);
        }
        reader.join();
        String text;
        synchronized (output) {
            text = output.toString();
        }
        System.out.println(text); // the gate's figures, for the report
        assertTrue(text.contains(ParkedTerminals.SINGLE_CARRIER_MARK), text);
        assertEquals(0, child.exitValue(), text);
        return text;
    }
}
