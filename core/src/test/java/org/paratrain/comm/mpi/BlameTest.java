package org.paratrain.comm.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which rank a timed-out rank names, from made-up progress records. */
class BlameTest {
    private static final long NOW = 1_000_000;
    private static final long FRESH = 2_000;

    private static RankRecord.Snapshot computing() {
        return new RankRecord.Snapshot(1, 5, NOW - 100, 0, Op.NONE, 0, 0, RankRecord.RUNNING);
    }

    private static RankRecord.Snapshot stopped() {
        return new RankRecord.Snapshot(1, 5, NOW - 60_000, 0, Op.NONE, 0, 0, RankRecord.RUNNING);
    }

    private static RankRecord.Snapshot waiting(Op op, int peer) {
        return new RankRecord.Snapshot(1, 5, NOW - 100, NOW - 9_000, op, peer, 1, RankRecord.RUNNING);
    }

    /** Master-worker, rank 2 stopped: rank 0 waits for 2, ranks 1 and 3 wait for 0. */
    @Test
    void aWorkerWaitingForTheMasterDefersToTheMaster() {
        RankRecord.Snapshot[] r = {waiting(Op.RECEIVE, 2), null, stopped(), waiting(Op.RECEIVE, 0)};
        Blame.Verdict v = Blame.of(1, Op.RECEIVE, 0, r, NOW, FRESH);
        assertEquals(0, v.waitedFor());
        assertEquals(2, v.culprit());
        assertTrue(v.indirect());
        Blame.Verdict master = Blame.of(0, Op.RECEIVE, 2, new RankRecord.Snapshot[] {null, waiting(Op.RECEIVE, 0),
            stopped(), waiting(Op.RECEIVE, 0)}, NOW, FRESH);
        assertEquals(2, master.culprit());
        assertFalse(master.indirect());
    }

    /** A rank stopped while itself waiting shows a stale heartbeat: it is the one to name. */
    @Test
    void aStoppedRankThatWasWaitingIsStillTheCulprit() {
        RankRecord.Snapshot stale = new RankRecord.Snapshot(1, 5, NOW - 60_000, NOW - 61_000, Op.RECEIVE, 0, 1, 0);
        Blame.Verdict v = Blame.of(0, Op.RECEIVE, 1, new RankRecord.Snapshot[] {null, stale}, NOW, FRESH);
        assertEquals(1, v.culprit());
        assertFalse(v.indirect());
    }

    @Test
    void aCollectiveNamesTheFirstRankNotInIt() {
        RankRecord.Snapshot[] r = {null, waiting(Op.ALLREDUCE, -1), computing(), waiting(Op.ALLREDUCE, -1)};
        Blame.Verdict v = Blame.of(0, Op.ALLREDUCE, -1, r, NOW, FRESH);
        assertEquals(2, v.waitedFor());
        assertEquals(2, v.culprit());
    }

    @Test
    void aCollectiveWithoutRecordsNamesNobody() {
        Blame.Verdict v = Blame.of(0, Op.BARRIER, -1, new RankRecord.Snapshot[3], NOW, FRESH);
        assertEquals(-1, v.waitedFor());
        assertFalse(v.indirect());
    }

    /** Ring: each waits for the previous; the chain runs back to the stopped rank. */
    @Test
    void aChainIsFollowedToItsEnd() {
        RankRecord.Snapshot[] r = {null, waiting(Op.SEND_RECEIVE, 0), stopped(), waiting(Op.SEND_RECEIVE, 2),
            waiting(Op.SEND_RECEIVE, 3)};
        Blame.Verdict v = Blame.of(0, Op.SEND_RECEIVE, 4, r, NOW, FRESH);
        assertEquals(4, v.waitedFor());
        assertEquals(2, v.culprit());
    }

    /** Everybody waiting for everybody is a deadlock: the direct peer is named. */
    @Test
    void aCycleOfWaitingRanksNamesTheDirectPeer() {
        RankRecord.Snapshot[] r = {null, waiting(Op.RECEIVE, 2), waiting(Op.RECEIVE, 1)};
        Blame.Verdict v = Blame.of(0, Op.RECEIVE, 1, r, NOW, FRESH);
        assertEquals(1, v.culprit());
        assertFalse(v.indirect());
    }

    @Test
    void withoutARecordThePeerIsTheCulprit() {
        Blame.Verdict v = Blame.of(0, Op.SEND, 3, new RankRecord.Snapshot[4], NOW, FRESH);
        assertEquals(3, v.culprit());
        assertFalse(v.indirect());
    }
}
