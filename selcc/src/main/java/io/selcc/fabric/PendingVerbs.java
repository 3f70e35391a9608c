package io.selcc.fabric;

/**
 * A verb batch posted with {@link FabricEndpoint#postAsync}: the caller may do other work and then wait.
 * Until {@link #await} returns, the batch and the segments its READs fill belong to the fabric.
 */
public interface PendingVerbs {
    /** A batch that completed before it was returned (a fabric that posts synchronously). */
    PendingVerbs DONE = () -> { };

    /** Waits until every verb has completed and the atomics' results are in the batch; throws what the post would. */
    void await();
}
