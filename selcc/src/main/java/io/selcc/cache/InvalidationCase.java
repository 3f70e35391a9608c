package io.selcc.cache;

import io.selcc.fabric.Counter;

/** The three conflict cases of paper section 4.4. */
enum InvalidationCase {
    /** 4.4.1: a writer asks the modified holder: ownership handover by one FAA, GCL forwarded. */
    WRITER_VS_MODIFIED(Counter.INVALIDATIONS_SENT_WRITER_VS_MODIFIED),
    /** 4.4.2: a reader asks the modified holder: write back + FAA leaving both as readers, forward. */
    READER_VS_MODIFIED(Counter.INVALIDATIONS_SENT_READER_VS_MODIFIED),
    /** 4.4.3: a writer asks each shared holder to release; the writer retries. */
    WRITER_VS_SHARED(Counter.INVALIDATIONS_SENT_WRITER_VS_SHARED);

    final Counter sentCounter;

    InvalidationCase(Counter sentCounter) {
        this.sentCounter = sentCounter;
    }
}
