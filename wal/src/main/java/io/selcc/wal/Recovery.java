package io.selcc.wal;

import io.selcc.engine.BulkLoad;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.DeferredIndexes;
import io.selcc.engine.Redo;
import io.selcc.engine.Table;
import io.selcc.engine.TxnResult;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Rebuilds a database from a data directory: the newest complete checkpoint, then every node's log
 * replayed by commit sequence number.
 *
 * <p>A data directory holds {@code checkpoint-*.ckpt} files ({@link Checkpoint}) and the logs under
 * {@link #logDirectory}, one Chronicle Queue per compute node ({@link Wal}). Recovery loads the
 * checkpoint's rows into the fresh database (a bulk load), reads every node's log (each cut at its
 * first damaged record), and replays in sequence order the records after the checkpoint's replay
 * start, as long as the numbers are dense: the first missing number (a record never forced before
 * the crash) ends the replay, because a later transaction may have read from the missing one. None
 * of the transactions past it was acknowledged (see {@link Wal}), so nothing acknowledged is lost.
 *
 * <p>Partitioned mode keeps a two-phase-commit log per compute node beside the commit logs: after the
 * replay, the branches of every transaction with a forced commit decision that the replay did not reach
 * are applied from their prepare records and the decision's own changes, and prepared branches without
 * a decision are dropped ({@link InDoubtResolution} says why that order is consistent).
 *
 * <p>The secondary indexes are built after the replay ({@link DeferredIndexes}): a fuzzy scan can hold
 * a unique secondary key on two rows when a transaction moved it between them during the scan, and
 * only the replay rewrites the row it left. A key still on two rows after the replay is a fault.
 *
 * <p>Replay is idempotent: inserts and updates put the logged image under the row's primary key
 * (whatever the checkpoint's fuzzy scan saw), deletes remove the key if present. Replaying twice gives
 * the same rows.
 *
 * <p>When anything was replayed or left out, recovery ends with a new checkpoint whose replay start is
 * past every number seen: records beyond a gap must never be replayed later. Then it removes the logs
 * (every record in them is at or below the newest checkpoint's replay start), or, when it did not read
 * them to their end (a gap with records after it, a damaged record), moves them aside as evidence
 * ({@link Summary#logsSetAside}); the compacting checkpoint then says so in a property, so a crash
 * before the move leaves them to the next recovery to move, not to remove. New commits
 * (numbered after them, see {@link Database#raiseCommitSequence}) start a fresh log.
 *
 * <p>A log whose first cycle files were removed by truncation ({@link Wal#truncate}) is read from the
 * first file left; a checkpoint whose replay needs records that are gone is refused as any other whose
 * logs end too early.
 */
public final class Recovery {
    /** The subdirectory of a data directory that holds the logs. */
    private static final String LOGS = "wal";
    /**
     * A compacting checkpoint's property when the recovery that wrote it is about to set the logs aside
     * (its value: the last number replayed, which names the set-aside directory). A crash before the
     * move leaves the logs in place under a checkpoint that covers them all; the next recovery finds
     * this property and sets them aside instead of removing them. Recovery's own: never passed on.
     */
    static final String SET_LOGS_ASIDE_AFTER = "recovery.setLogsAsideAfter";

    private Recovery() {
    }

    /**
     * What a recovery did.
     *
     * @param checkpoint the checkpoint loaded
     * @param checkpointRows rows loaded from it
     * @param replayFrom its replay start: records numbered above it were candidates for replay
     * @param recordsRead log records read in every node's log (before and after the replay start)
     * @param replayed transactions replayed
     * @param lastReplayed the last sequence number replayed (replayFrom if none)
     * @param highestSeen the highest sequence number found in any log
     * @param logBytes bytes of the log records read
     * @param indexEntries secondary index entries built once the replay was done
     * @param warnings damaged log tails cut, and a gap that ended the replay
     * @param compacted a new checkpoint, when one was written
     * @param logsSetAside where the logs were moved when the replay did not read them to their end (a
     *                     gap with records after it, a damaged record): kept for whoever investigates;
     *                     null when they were removed
     * @param decided distributed transactions with a commit decision in a two-phase-commit log
     *                (partitioned mode; 0 without such logs)
     * @param branchesApplied branches of decided transactions applied from the two-phase-commit logs,
     *                        because the replay did not reach their commit records
     * @param branchesDiscarded prepared branches with no decision, rolled back (presumed abort)
     * @param seconds time the recovery took
     */
    public record Summary(Path checkpoint, long checkpointRows, long replayFrom, long recordsRead, long replayed,
                          long lastReplayed, long highestSeen, long logBytes, long indexEntries, List<String> warnings,
                          Checkpoint.Summary compacted, Path logsSetAside, long decided, long branchesApplied,
                          long branchesDiscarded, double seconds) {
        /** One line for a command's output. */
        public String describe() {
            return String.format(java.util.Locale.ROOT,
                "recovered from %s (%,d rows, replay from sequence %,d): %,d log records read (%,d bytes),"
                    + " %,d transactions replayed up to sequence %,d%s, %,d secondary index entries built%s in %.1f s",
                checkpoint.getFileName(), checkpointRows, replayFrom, recordsRead, logBytes, replayed, lastReplayed,
                decided + branchesDiscarded == 0 ? "" : String.format(java.util.Locale.ROOT,
                    "; two-phase commit: %,d decided transactions, %,d of their branches applied from prepare or"
                        + " decision records, %,d prepared branches without a decision rolled back",
                    decided, branchesApplied, branchesDiscarded),
                indexEntries,
                compacted == null ? "" : ", new checkpoint " + compacted.path().getFileName(), seconds);
        }
    }

    /** Where a data directory's logs live (one subdirectory per compute node, see {@link Wal#nodeDirectory}). */
    public static Path logDirectory(Path dataDirectory) {
        return dataDirectory.resolve(LOGS);
    }

    /**
     * Recovers into {@code db}, a freshly built database with the data directory's tables, no rows and
     * no log attached ({@link Database#startLogging} comes after). Raises its commit sequence counter past
     * every number seen.
     *
     * @throws IllegalArgumentException if the directory holds no checkpoint, or one of another schema
     * @throws IllegalStateException if a checkpoint or a log is damaged beyond a cut tail, or the rows
     *                               replayed hold a unique secondary key twice (nothing in the directory
     *                               is changed then)
     */
    public static Summary recover(Database db, Path dataDirectory) {
        return recover(db, dataDirectory, () -> { });
    }

    /**
     * {@link #recover(Database, Path)} that runs {@code afterCompaction} once the compacting checkpoint
     * (if any) is published and before the logs are removed or set aside: tests crash there.
     */
    static Summary recover(Database db, Path dataDirectory, Runnable afterCompaction) {
        long start = System.nanoTime();
        Path file = Checkpoint.newest(dataDirectory).orElseThrow(() -> new IllegalArgumentException(
            "no checkpoint in " + dataDirectory + ": load the database into it first"));
        DatabaseNode node = db.node(0);
        List<Table> tables = node.tables();
        long rows;
        long replayFrom;
        long coveredThrough;
        Map<String, String> properties;
        // The fuzzy scan may hold a unique secondary key on two rows (moved during the scan); only the
        // replay makes the rows consistent, so the secondary indexes are built after it.
        DeferredIndexes secondaries = node.deferSecondaryIndexes();
        try (Checkpoint.Reader reader = Checkpoint.open(file)) {
            reader.verify(db);
            replayFrom = reader.replayFrom();
            coveredThrough = reader.coveredThrough();
            properties = new java.util.TreeMap<>(reader.properties());
            try (BulkLoad bulk = node.bulkLoad()) {
                rows = reader.forEachRow((tableId, recordId, buffer, offset) -> // recordId: the writing run's memory, not ours
                    bulk.insert(tables.get(tableId - 1), row -> row.setRowFrom(buffer, offset)));
            }
        }
        // Set by a recovery that published its compacting checkpoint and then crashed before it could
        // move the logs aside: they are still here, and every record in them is at or below replayFrom.
        String unfinishedSetAside = properties.remove(SET_LOGS_ASIDE_AFTER);
        long recordsAtOrBelowStart = 0;
        List<String> warnings = new ArrayList<>();
        long recordsRead = 0;
        long logBytes = 0;
        long highestSeen = replayFrom;
        long lastReplayed = replayFrom;
        long replayed = 0;
        Path logs = logDirectory(dataDirectory);
        // Branches of distributed transactions whose commit records the replay reached (or the checkpoint covers).
        java.util.Set<InDoubtResolution.Branch> branchesPresent = new java.util.HashSet<>();
        // Every node's log is in ascending sequence order: a merge by sequence number holds one record
        // per log, however long the logs are (holding and sorting them all ran out of heap at 3 GB).
        List<LogReader.Cursor> cursors = new ArrayList<>();
        // Compute nodes of other processes that were repaired (RepairMarker): their records past what the
        // repair took were never committed for anyone, and the numbers they drew and never appended are void.
        Map<Integer, RepairMarker> markers = RepairMarker.readAll(logs);
        long[] voids = markers.values().stream().flatMapToLong(m -> java.util.Arrays.stream(m.voids())).sorted().distinct().toArray();
        try {
            java.util.PriorityQueue<Head> heads = new java.util.PriorityQueue<>(Comparator.comparingLong(h -> h.record.sequence()));
            for (Path nodeDirectory : subdirectories(logs, "node-")) {
                LogReader.Cursor cursor = LogReader.open(nodeDirectory);
                cursors.add(cursor);
                LogRecord first = cursor.next();
                if (first != null) {
                    heads.add(new Head(first, cursor));
                }
            }
            long notReplayed = 0;
            long lateIgnored = 0;
            long stoppedAfter = -1;
            while (!heads.isEmpty()) {
                Head head = heads.poll();
                LogRecord record = head.record;
                recordsRead++;
                logBytes += LogRecordLayout.encodedLength(record);
                highestSeen = Math.max(highestSeen, record.sequence());
                RepairMarker repaired = markers.get(record.computeNode());
                boolean late = repaired != null && repaired.late(record.sequence());
                if (late) {
                    lateIgnored++; // appended by a fenced process after its repair read the log
                } else if (record.sequence() <= replayFrom) {
                    recordsAtOrBelowStart++;
                } else {
                    if (stoppedAfter >= 0) {
                        notReplayed++; // past a gap: read only to count it and to see the highest number
                    } else if (record.sequence() == lastReplayed) {
                        throw new IllegalStateException("two log records with sequence " + record.sequence() + " in " + logs);
                    } else if (record.sequence() != lastReplayed + 1
                        && !allVoid(voids, lastReplayed + 1, record.sequence() - 1)) {
                        stoppedAfter = lastReplayed;
                        notReplayed++;
                    } else {
                        replay(node, tables, record);
                        lastReplayed = record.sequence();
                        replayed++;
                    }
                }
                if (!late && record.globalId() != 0 && record.sequence() <= lastReplayed) {
                    branchesPresent.add(new InDoubtResolution.Branch(record.computeNode(), record.globalId()));
                }
                LogRecord next = head.cursor.next();
                if (next != null) {
                    heads.add(new Head(next, head.cursor));
                }
            }
            for (LogReader.Cursor cursor : cursors) {
                if (cursor.warning() != null) {
                    warnings.add(cursor.warning());
                }
            }
            if (lateIgnored > 0) {
                warnings.add(lateIgnored + " log record(s) of repaired compute nodes ignored: appended after the"
                    + " repair read their logs (see " + markers.keySet() + "), they never committed");
            }
            if (stoppedAfter >= 0) {
                warnings.add("replay stopped after sequence " + stoppedAfter + ": " + (stoppedAfter + 1)
                    + " is in no log (never forced); " + notReplayed
                    + " later record(s) not replayed, none of them was acknowledged");
            }
        } finally {
            for (LogReader.Cursor cursor : cursors) {
                cursor.close();
            }
        }
        if (lastReplayed < coveredThrough) {
            // The checkpoint's fuzzy scan may hold writes of transactions up to coveredThrough; only a
            // replay through them makes its rows consistent. Nothing is changed in the directory.
            throw new IllegalStateException("the logs in " + logs + " end at sequence " + lastReplayed + ", before "
                + coveredThrough + ", which checkpoint " + file.getFileName() + " needs replayed to be consistent"
                + (warnings.isEmpty() ? "" : ": " + String.join("; ", warnings)));
        }
        InDoubtResolution.Result inDoubt = InDoubtResolution.resolve(node, tables, logs, branchesPresent);
        warnings.addAll(inDoubt.warnings());
        long indexEntries = secondaries.build();
        db.raiseCommitSequence(highestSeen);
        Checkpoint.Summary compacted = null;
        if (highestSeen > replayFrom || !warnings.isEmpty() || inDoubt.decided() + inDoubt.discarded() > 0) {
            // Also after a cut tail with nothing past the replay start: a log that went on after its
            // damaged record would hide every later record of that node from the next recovery.
            Map<String, String> compactedProperties = properties;
            if (!warnings.isEmpty()) {
                // Written before the checkpoint: once it is published, a crash before the move below
                // must not let the next recovery, which reads nothing past it, remove the logs.
                compactedProperties = new java.util.TreeMap<>(properties);
                compactedProperties.put(SET_LOGS_ASIDE_AFTER, Long.toString(lastReplayed));
            }
            compacted = Checkpoint.write(db, dataDirectory, null, compactedProperties);
        }
        afterCompaction.run();
        // Now the checkpoint covers every record replayed: the logs start afresh. (With no record past
        // the replay start there is nothing to lose; with no record at all, a process killed while
        // Chronicle was creating a queue may have left a half-made metadata file a new log could not
        // open.) So a log always opens empty, and truncation knows every cycle file of it. Logs the
        // replay did not read to their end hold records nobody replayed: moved aside, not deleted.
        Path setAside = null;
        if (warnings.isEmpty() && unfinishedSetAside != null && recordsAtOrBelowStart > 0) {
            // The logs that recovery did not move: a run after it appends only numbers above replayFrom.
            setAside = setLogsAside(dataDirectory, Long.parseLong(unfinishedSetAside));
            warnings.add("the logs an earlier recovery had not replayed to their end, and was stopped before it"
                + " could move them, are kept in " + setAside
                + " (a recovery does not read them again; remove the directory once they are no longer needed)");
        } else if (warnings.isEmpty()) {
            removeLogs(dataDirectory);
        } else {
            setAside = setLogsAside(dataDirectory, lastReplayed);
            warnings.add("the logs were not replayed to their end and are kept in " + setAside
                + " (a recovery does not read them again; remove the directory once they are no longer needed)");
        }
        return new Summary(file, rows, replayFrom, recordsRead, replayed, lastReplayed, highestSeen, logBytes,
            indexEntries, List.copyOf(warnings), compacted, setAside, inDoubt.decided(), inDoubt.applied(),
            inDoubt.discarded(), (System.nanoTime() - start) / 1e9);
    }

    /** Whether every number in {@code [from, to]} is among {@code voids} (sorted, distinct): drawn and never appended. */
    private static boolean allVoid(long[] voids, long from, long to) {
        int first = java.util.Arrays.binarySearch(voids, from);
        int last = java.util.Arrays.binarySearch(voids, to);
        return first >= 0 && last >= 0 && last - first == to - from;
    }

    /** One logged transaction, as one transaction: images put under their keys, deletes by key. */
    static void replay(DatabaseNode node, List<Table> tables, LogRecord record) {
        TxnResult<Object> result = node.run(tx -> {
            for (LogRecord.Entry entry : record.entries()) {
                if (entry.tableId() < 1 || entry.tableId() > tables.size()) {
                    throw new IllegalStateException("log record " + record.sequence() + " names table id "
                        + entry.tableId() + "; the database has " + tables.size() + " tables");
                }
                Table table = tables.get(entry.tableId() - 1);
                byte[] image = entry.image();
                if (entry.kind() == Redo.DELETE) {
                    tx.delete(table, entry.key()); // absent when the checkpoint's scan came after the delete
                    continue;
                }
                int expected = table.schema().tupleSize() - io.selcc.storage.TupleLayout.HEADER_SIZE;
                if (image.length != expected) {
                    throw new IllegalStateException("log record " + record.sequence() + ": an image of " + image.length
                        + " bytes for table " + table.name() + ", whose rows have " + expected);
                }
                boolean updated = !table.heap().insertOnly()
                    && tx.update(table, entry.key(), row -> row.setRowFrom(image, 0));
                if (!updated && !tx.insert(table, row -> row.setRowFrom(image, 0)) && !table.heap().insertOnly()) {
                    throw new IllegalStateException("log record " + record.sequence() + ": key " + entry.key()
                        + " of table " + table.name() + " neither updated nor inserted");
                }
            }
            return null;
        });
        if (!result.committed()) {
            throw new IllegalStateException("replay of log record " + record.sequence() + " did not commit: " + result);
        }
    }

    /** A log's next record in the merge, and the log it came from. */
    private record Head(LogRecord record, LogReader.Cursor cursor) {
    }

    /** The subdirectories of {@code logs} whose names start with {@code prefix}, in name order (none if it is absent). */
    static List<Path> subdirectories(Path logs, String prefix) {
        if (!Files.isDirectory(logs)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(logs)) {
            return entries.filter(Files::isDirectory).filter(p -> p.getFileName().toString().startsWith(prefix))
                .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the logs in " + logs, e);
        }
    }

    /**
     * Deletes a data directory's logs once a newer checkpoint covers every record in them (its replay
     * start is at or past the last number drawn); the logs must be closed.
     */
    public static void removeLogs(Path dataDirectory) {
        Path logs = logDirectory(dataDirectory);
        if (Files.exists(logs)) {
            deleteTree(logs);
        }
    }

    /** Deletes {@code tree} and everything in it. */
    public static void deleteTree(Path tree) {
        try (Stream<Path> paths = Files.walk(tree)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path); // gone meanwhile is gone
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + tree, e);
        }
    }

    /**
     * Moves the data directory's logs to a new directory beside them, named after the last number
     * replayed ({@code wal-set-aside-after-N}, with a suffix if that exists), and returns it.
     */
    static Path setLogsAside(Path dataDirectory, long lastReplayed) {
        Path logs = logDirectory(dataDirectory);
        String name = LOGS + "-set-aside-after-" + lastReplayed;
        Path aside = dataDirectory.resolve(name);
        for (int n = 2; Files.exists(aside); n++) {
            aside = dataDirectory.resolve(name + "-" + n);
        }
        try {
            Files.move(logs, aside, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            FileForcing.DISK.force(dataDirectory, true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot move the logs " + logs + " aside to " + aside, e);
        }
        return aside;
    }

    /** The newest checkpoint's properties (what the command that wrote it recorded), if there is one. */
    public static Optional<Map<String, String>> properties(Path dataDirectory) {
        Optional<Path> file = Checkpoint.newest(dataDirectory);
        if (file.isEmpty()) {
            return Optional.empty();
        }
        try (Checkpoint.Reader reader = Checkpoint.open(file.get())) {
            Map<String, String> properties = new java.util.TreeMap<>(reader.properties());
            properties.remove(SET_LOGS_ASIDE_AFTER); // recovery's own: a checkpoint the command writes must not carry it
            return Optional.of(java.util.Collections.unmodifiableMap(properties));
        }
    }
}
