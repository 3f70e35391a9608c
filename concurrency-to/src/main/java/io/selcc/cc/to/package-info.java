/**
 * Basic timestamp ordering over SELCC (paper 6.4): each transaction takes its timestamp with one FAA
 * on a global counter; each tuple keeps the timestamps of its last write and of its youngest read.
 * Writes are buffered and installed at commit, so a reader never sees an uncommitted write.
 */
package io.selcc.cc.to;
