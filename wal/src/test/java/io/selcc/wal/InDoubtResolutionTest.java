package io.selcc.wal;

import io.selcc.engine.Database;
import io.selcc.engine.Redo;
import io.selcc.engine.RedoFixture;
import io.selcc.engine.TableDefinition;
import io.selcc.storage.Schema;
import io.selcc.storage.TupleBuffer;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A recovery's resolution of distributed transactions ({@link InDoubtResolution}) over logs written by
 * hand: node 0's commit log holds a branch record of G2 (sequence 1, replayed), a local commit over
 * the same row (2), a gap (3) and a branch record of G1 past it (4, not replayed); node 1's
 * two-phase-commit log holds the decisions of G1 and G2 with node 1's own changes, node 0's holds the
 * prepare records of G1, G2 and of G3, which nobody decided.
 *
 * <p>Planted bugs this caught: branches counted present up to the highest sequence seen instead of the
 * last replayed (G1's branch past the gap taken for present: account 2 stayed 100); every decided branch
 * applied, present or not (G2's prepare image over the later local commit: account 1 went back to 110);
 * prepares applied without a decision (G3's image: account 2 became 999).
 */
class InDoubtResolutionTest {
    private static final Schema ACCOUNT = Schema.builder().addLong("id").addLong("balance").build();
    private static final long G1 = 0x2000000000001L;
    private static final long G2 = 0x2000000000002L;
    private static final long G3 = 0x2000000000003L;

    private static Database database() {
        return Database.builder().cc("2pl").computeNodes(2)
            .table(TableDefinition.of("account", ACCOUNT, row -> row.getLong(0))).build();
    }

    @Test
    void decidedBranchesMissingFromTheReplayAreAppliedAndNothingElse(@TempDir Path dir) throws Exception {
        Path data = writeDirectory(dir);
        try (Database db = database()) {
            Recovery.Summary summary = Recovery.recover(db, data);
            System.out.println("InDoubtResolutionTest " + summary.describe() + " " + summary.warnings());
            assertEquals(2, summary.lastReplayed(), "the replay stopped at the gap");
            assertEquals(120, balance(db, 1), "G2's branch was replayed, and the local commit after it stays");
            assertEquals(130, balance(db, 2), "G1's branch past the gap came from its prepare record");
            assertEquals(140, balance(db, 3), "G1's home branch came from its decision");
            assertEquals(150, balance(db, 4), "G2's home branch came from its decision");
            assertEquals(2, summary.decided());
            assertEquals(3, summary.branchesApplied());
            assertEquals(1, summary.branchesDiscarded(), "G3, prepared and never decided");
            assertNotNull(summary.logsSetAside(), "records past the gap: the logs are kept aside");
        }
    }

    @Test
    void aDamagedTwoPhaseCommitLogIsReportedAndSetAside(@TempDir Path dir) throws Exception {
        Path data = writeDirectory(dir);
        Path logs = Recovery.logDirectory(data);
        append(TwoPhaseLog.directory(logs, 0), new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
            18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30});
        try (Database db = database()) {
            Recovery.Summary summary = Recovery.recover(db, data);
            assertTrue(summary.warnings().stream().anyMatch(w -> w.contains("two-phase-commit log cut at a damaged record")),
                summary.warnings().toString());
            assertEquals(130, balance(db, 2), "what precedes the damage still counts");
        }
    }

    /** The directory the class javadoc describes: a checkpoint of accounts 1-4 at 100, then the logs. */
    private static Path writeDirectory(Path dir) throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        try (Database db = database()) {
            var node = db.node(0);
            var table = node.table("account");
            for (long id = 1; id <= 4; id++) {
                long key = id;
                assertTrue(node.run(tx -> tx.insert(table, row -> {
                    row.setLong(0, key);
                    row.setLong(1, 100);
                })).committed());
            }
            assertEquals(0, Checkpoint.write(db, data, null, Map.of()).replayFrom());
        }
        Path logs = Recovery.logDirectory(data);
        Path node0 = Wal.nodeDirectory(logs, 0);
        append(node0, commitRecord(1, 0, G2, update(1, 110)));
        append(node0, commitRecord(2, 0, 0, update(1, 120)));
        append(node0, commitRecord(4, 0, G1, update(2, 130)));
        try (TwoPhaseLog coordinator = TwoPhaseLog.open(TwoPhaseLog.directory(logs, 1), 1);
             TwoPhaseLog participant = TwoPhaseLog.open(TwoPhaseLog.directory(logs, 0), 0)) {
            participant.forcePrepare(G2, update(1, 110));
            coordinator.forceCommit(G2, update(4, 150));
            participant.forcePrepare(G1, update(2, 130));
            coordinator.forceCommit(G1, update(3, 140));
            participant.forcePrepare(G3, update(2, 999));
        }
        return data;
    }

    private static Redo update(long id, long balance) {
        TupleBuffer row = new TupleBuffer(ACCOUNT);
        row.view().setLong(0, id);
        row.view().setLong(1, balance);
        byte[] image = new byte[row.rowBytes()];
        row.copyRowTo(image, 0);
        return RedoFixture.add(new Redo(), Redo.UPDATE, 1, id, image);
    }

    private static byte[] commitRecord(long sequence, int node, long globalId, Redo redo) {
        RedoFixture.globalId(redo, globalId);
        byte[] record = new byte[LogRecordLayout.encodedLength(redo)];
        LogRecordLayout.encode(redo, sequence, node, record, new CRC32C());
        return record;
    }

    /** One document appended to the Chronicle queue in {@code directory}, as the logs write them. */
    private static void append(Path directory, byte[] bytes) {
        try (SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(directory).rollCycle(Wal.rollCycle()).build();
             ExcerptAppender appender = queue.createAppender();
             DocumentContext document = appender.writingDocument()) {
            document.wire().bytes().write(bytes);
        }
    }

    private static long balance(Database db, long id) {
        var node = db.node(0);
        return node.run(tx -> tx.get(node.table("account"), id).getLong(1)).value();
    }
}
