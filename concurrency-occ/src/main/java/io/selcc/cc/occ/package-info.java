/**
 * Optimistic concurrency control over SELCC (paper 6.4): reads copy tuples under short S latches and
 * remember their versions; writes are buffered; commit latches the pages of the write set in global
 * address order, checks that every tuple read still has its version (and that its page is not being
 * changed right now), installs the writes with new versions and releases.
 */
package io.selcc.cc.occ;
