package io.selcc.fabric.tcp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The cluster file: a good one reads back; every bad one is refused naming the file and the problem. */
class ClusterMapTest {
    @TempDir
    Path dir;

    private Path file(String text) throws IOException {
        Path f = dir.resolve("cluster.properties");
        Files.writeString(f, text);
        return f;
    }

    @Test
    void aGoodFileReadsBack() throws IOException {
        ClusterMap map = ClusterMap.load(file("""
            # two compute nodes, one memory node
            memory.0=10.0.0.1:7000
            compute.1=10.0.0.3:7101

            compute.0 = 10.0.0.2:7100
            """));
        assertEquals(1, map.memoryNodes().size());
        assertEquals(2, map.computeNodes().size());
        assertEquals("10.0.0.2", map.computeNodes().get(0).getHostString());
        assertEquals(7101, map.computeNodes().get(1).getPort());
    }

    @Test
    void badFilesAreRefusedByName() throws IOException {
        assertRefused("memory.0=a:1\ncompute.0=b:2\ncompute.0=c:3\n", "compute.0 is defined twice", "line 3");
        assertRefused("memory.0=a:1\ncompute.0=b:2\ncompute.2=c:3\n", "missing compute.1");
        assertRefused("compute.0=b:2\n", "no memory node");
        assertRefused("memory.0=a:1\n", "no compute node");
        assertRefused("memory.0=a:1\ncompute.0=b:70000\n", "outside 0-65535");
        assertRefused("memory.0=a\ncompute.0=b:2\n", "host:port");
        assertRefused("memory.0=a:1\nstorage.0=b:2\n", "unknown key 'storage.0'");
        assertRefused("memory.x=a:1\n", "no node number");
        assertRefused("memory.0 a:1\n", "expected key=host:port");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> ClusterMap.load(dir.resolve("absent.properties")));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }

    private void assertRefused(String text, String... mentions) throws IOException {
        Path f = file(text);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClusterMap.load(f));
        assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
        for (String m : mentions) {
            assertTrue(e.getMessage().contains(m), "'" + m + "' not in: " + e.getMessage());
        }
    }
}
