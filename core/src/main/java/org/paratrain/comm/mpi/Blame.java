package org.paratrain.comm.mpi;

import java.util.HashSet;
import java.util.Set;

/**
 * Which rank a rank that waited too long is really waiting for. When rank 2 stops, rank 0
 * waits for rank 2's gradients and ranks 1 and 3 wait for rank 0's weights; all of them time
 * out at about the same moment, and only rank 0's message names the rank that stopped. So a
 * rank that times out follows the waits-for chain through the progress records: from the rank
 * it waits for, to the rank that one waits for, until a rank that is not waiting (stopped,
 * dead, or busy computing). When that rank is not its own peer, another rank waits for it
 * directly and should be the one to speak.
 *
 * <p>A collective waits for whichever ranks have not joined it: the first rank not waiting in
 * a collective. Without records (ranks on other machines, or under the user's own mpirun) the
 * chain ends at the first step.
 */
final class Blame {
    private Blame() { }

    /**
     * @param waitedFor the rank this rank waits for, or -1 when no other rank is known to be missing
     * @param culprit   the rank at the end of the chain (equal to {@code waitedFor} when no record
     *                  says more), or -1
     */
    record Verdict(int waitedFor, int culprit) {
        /** True when another rank waits for the culprit directly and should report it. */
        boolean indirect() {
            return culprit >= 0 && culprit != waitedFor;
        }
    }

    /**
     * @param me      this rank
     * @param op      what it waits in
     * @param peer    the rank it waits for (point-to-point operations)
     * @param records every rank's record as just read, null entries where there is none
     * @param now     the time the records were read (ms since 1970)
     * @param fresh   how recent a heartbeat shows a running process (ms)
     */
    static Verdict of(int me, Op op, int peer, RankRecord.Snapshot[] records, long now, long fresh) {
        int first = op.collective() ? absentFromCollective(me, records, now, fresh) : peer;
        if (first < 0) {
            return new Verdict(-1, -1);
        }
        Set<Integer> seen = new HashSet<>(Set.of(me));
        int at = first;
        while (seen.add(at)) {
            RankRecord.Snapshot s = records[at];
            if (s == null || !s.waiting(now, fresh)) {
                return new Verdict(first, at);
            }
            int next = s.op().collective() ? absentFromCollective(at, records, now, fresh) : s.peer();
            if (next < 0 || next >= records.length) {
                return new Verdict(first, at);
            }
            at = next;
        }
        return new Verdict(first, first);   // a cycle of waiting ranks: a deadlock, name the direct peer
    }

    /**
     * The first rank other than {@code waiter} whose record shows it is not waiting in a
     * collective, or -1. Ranks without a record are not blamed: nothing is known of them.
     */
    private static int absentFromCollective(int waiter, RankRecord.Snapshot[] records, long now, long fresh) {
        for (int r = 0; r < records.length; r++) {
            RankRecord.Snapshot s = records[r];
            if (r != waiter && s != null && !(s.waiting(now, fresh) && s.op().collective())) {
                return r;
            }
        }
        return -1;
    }
}
