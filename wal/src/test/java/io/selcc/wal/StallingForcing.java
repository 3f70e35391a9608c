package io.selcc.wal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/** Forces to disk, except that while stalled a data force blocks until released. */
final class StallingForcing implements FileForcing {
    private final CountDownLatch released = new CountDownLatch(1);
    private final CountDownLatch blocked = new CountDownLatch(1);
    private volatile boolean stalled;

    void stall() {
        stalled = true;
    }

    void release() {
        released.countDown();
    }

    void awaitStalled() throws InterruptedException {
        blocked.await();
    }

    @Override
    public void forceData(FileChannel channel, Path file) throws IOException {
        if (stalled) {
            blocked.countDown();
            try {
                released.await();
            } catch (InterruptedException e) {
                throw new IOException("interrupted while stalled", e);
            }
        }
        FileForcing.DISK.forceData(channel, file);
    }

    @Override
    public void force(Path path, boolean metadata) throws IOException {
        FileForcing.DISK.force(path, metadata);
    }
}
