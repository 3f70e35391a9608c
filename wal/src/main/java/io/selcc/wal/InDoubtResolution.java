package io.selcc.wal;

import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The part of a recovery that reads partitioned mode's two-phase-commit logs ({@link TwoPhaseLog}, one
 * per compute node beside the commit logs): a distributed transaction whose coordinator forced its
 * commit decision is committed, whether or not each of its branches got as far as its commit record.
 *
 * <p>After the commit logs' replay, every branch of a decided transaction whose commit record the
 * replay did not reach is applied from the two-phase-commit logs: a participant's branch from its
 * prepare record, the coordinator's own branch from the decision record (which carries its changes).
 * A prepare record without a decision is discarded (presumed abort: the coordinator never decided, or
 * decided abort, which is never logged). The replay's set of branch commit records, by compute node
 * and global id ({@link LogRecordLayout#KIND_BRANCH_COMMIT}), says which branches are there already.
 *
 * <p>Why applying after the replay is consistent: a coordinator forces its decision only after every
 * commit appended before its prepare wave is durable ({@code DatabaseNode.awaitMarkDurable}), so everything a
 * branch read is in the replayed prefix; and a branch holds its latches until its commit record is
 * appended, so no record in the prefix overwrote what a branch the prefix lacks wrote (a later writer of
 * its rows would have a higher number than the branch's own record). So the branches applied here
 * touch rows no replayed record touched after them, and no two of them touch the same row.
 */
final class InDoubtResolution {
    /** A branch commit record in the commit logs: compute node and global transaction id. */
    record Branch(int computeNode, long globalId) {
    }

    /**
     * What the resolution did.
     *
     * @param decided    distributed transactions with a commit decision in some log
     * @param applied    branches applied from the two-phase-commit logs (their commit records were not replayed)
     * @param discarded  prepared branches with no decision: rolled back
     * @param warnings   two-phase-commit logs cut at a damaged record
     */
    record Result(long decided, long applied, long discarded, List<String> warnings) {
        static final Result NONE = new Result(0, 0, 0, List.of());
    }

    private InDoubtResolution() {
    }

    /**
     * Applies, through {@code node}, every branch of a decided transaction that {@code present} (the
     * branch commit records the replay reached, or the checkpoint covers) lacks.
     */
    static Result resolve(DatabaseNode node, List<Table> tables, Path logs, Set<Branch> present) {
        List<Path> directories = directories(logs);
        if (directories.isEmpty()) {
            return Result.NONE;
        }
        List<String> warnings = new ArrayList<>();
        Set<Long> decided = new HashSet<>();
        for (Path directory : directories) {
            String warning = TwoPhaseLog.forEachRecord(directory, (kind, record) -> {
                if (kind == LogRecordLayout.KIND_DECISION) {
                    decided.add(record.sequence());
                }
            });
            if (warning != null) {
                warnings.add(warning);
            }
        }
        long[] applied = {0};
        long[] discarded = {0};
        for (Path directory : directories) {
            TwoPhaseLog.forEachRecord(directory, (kind, record) -> {
                long globalId = record.sequence(); // a two-phase-commit record's sequence is its global id
                if (!decided.contains(globalId)) {
                    discarded[0]++; // a prepare without a decision: presumed abort
                    return;
                }
                if (!present.contains(new Branch(record.computeNode(), globalId))) {
                    Recovery.replay(node, tables, record);
                    applied[0]++;
                }
            });
        }
        return new Result(decided.size(), applied[0], discarded[0], List.copyOf(warnings));
    }

    private static List<Path> directories(Path logs) {
        return Recovery.subdirectories(logs, TwoPhaseLog.DIRECTORY_PREFIX);
    }
}
