package io.selcc.junit5;

import io.selcc.cache.AccessMode;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Gives each test method a fresh embedded database, closed when the test ends: declare a parameter of
 * type {@link io.selcc.engine.Database}, {@link io.selcc.engine.DatabaseNode} (compute node 0, or the one
 * {@link Node} names) or {@link DatabaseCounters}. On a class it applies to every test method; on a
 * method it replaces the class's. Tables and indexes come from {@link #schema()}; for anything the
 * attributes do not say, register {@link SelccDatabaseExtension} with a builder hook instead.
 *
 * <pre>{@code
 * @SelccDatabase(computeNodes = 2, cc = "occ", schema = Accounts.class)
 * class TransferTest {
 *     @Test
 *     void aTransferKeepsTheTotal(@Node(0) DatabaseNode n0, @Node(1) DatabaseNode n1, DatabaseCounters counters) { ... }
 * }
 * }</pre>
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(SelccDatabaseExtension.class)
public @interface SelccDatabase {
    int computeNodes() default 2;

    int memoryNodes() default 1;

    /** The concurrency control by name: {@code 2pl}, {@code occ} or {@code to}. */
    String cc() default "2pl";

    AccessMode access() default AccessMode.SELCC;

    /** Cache frames per compute node (each holds one GCL). */
    int cacheFrames() default 1024;

    /** Bytes per GCL (a power of two, 512 to 64 KiB). */
    int gclSize() default 2048;

    /** Threads per compute node that may run transactions at once. */
    int threadsPerNode() default 4;

    /** Shared memory per memory node, in MiB. */
    long memoryMiB() default 64;

    /**
     * Classes (with a no-argument constructor) that define the tables and indexes, applied in order;
     * none: an empty database.
     */
    Class<? extends DatabaseSchema>[] schema() default {};
}
