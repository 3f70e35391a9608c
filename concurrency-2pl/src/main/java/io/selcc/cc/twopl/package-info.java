/**
 * No-wait two-phase locking over SELCC (paper 6.4): the SELCC latches on heap pages are the locks,
 * shared for reads and exclusive for writes, held until commit. A busy latch aborts the transaction at
 * once ({@code trySLock}/{@code tryXLock} with bounded remote retries), so there is no deadlock.
 */
package io.selcc.cc.twopl;
