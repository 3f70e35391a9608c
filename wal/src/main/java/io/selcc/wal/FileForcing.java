package io.selcc.wal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * How a log makes what it wrote durable: {@code fdatasync} of an open cycle file, {@code fsync} of a
 * file or a directory by path. {@link #DISK} is the file system's; a test passes one that records the
 * paths (the seam that shows every directory entry from the data directory down to a log's cycle file
 * forced before a commit is acknowledged).
 */
interface FileForcing {
    /** {@code fdatasync} of {@code file}, open on {@code channel}. */
    void forceData(FileChannel channel, Path file) throws IOException;

    /** Forces {@code path}, a file or a directory ({@code metadata}: with its metadata, as a directory needs). */
    void force(Path path, boolean metadata) throws IOException;

    FileForcing DISK = new FileForcing() {
        @Override
        public void forceData(FileChannel channel, Path file) throws IOException {
            channel.force(false);
        }

        @Override
        public void force(Path path, boolean metadata) throws IOException {
            try (FileChannel c = FileChannel.open(path, StandardOpenOption.READ)) {
                c.force(metadata);
            }
        }
    };
}
