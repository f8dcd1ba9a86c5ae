package org.paratrain.comm.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.paratrain.comm.CommTimeoutException;
import org.paratrain.comm.PeerFailedException;

/** Where the ranks of one process meet: real threads, real parks, a real deadline. */
class MeetingTest {

    /** Runs {@code task(localRank)} on {@code n} virtual threads and returns what each threw (or null). */
    private static List<Throwable> onThreads(int n, java.util.function.IntConsumer task) throws InterruptedException {
        AtomicReferenceArray<Throwable> thrown = new AtomicReferenceArray<>(n);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            int me = t;
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    task.accept(me);
                } catch (Throwable e) {
                    thrown.set(me, e);
                }
            }));
        }
        for (Thread t : threads) {
            t.join(10_000);
            assertTrue(!t.isAlive(), "a rank did not come back from the meeting");
        }
        List<Throwable> out = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            out.add(thrown.get(t));
        }
        return out;
    }

    /**
     * A step run while every rank's own thread waits in the meeting tells its thread's MPI waits
     * so (they may poll as a process of one rank does); a meeting one of whose arrivals is a
     * bucket's exchange thread does not (a sibling may compute), and after a step nothing is left told.
     */
    @Test
    void aStepTellsItsWaitsWhetherEveryRankWaitsForIt() throws InterruptedException {
        Meeting m = new Meeting(2, new ReentrantLock());
        assertEquals(List.of(true, false), List.of(stepSeesEveryRankWait(m, false), stepSeesEveryRankWait(m, true)));
    }

    /** One meeting of 2 ranks, rank 1 from a background thread if asked: what the step's thread was told. */
    private static boolean stepSeesEveryRankWait(Meeting m, boolean bucket) throws InterruptedException {
        boolean[] seen = new boolean[1];
        boolean[] after = {true, true};
        List<Throwable> thrown = onThreads(2, me -> {
            Runnable meet = () -> {
                m.meet(me, new long[1], 0, (buffers, offsets, leaders) -> seen[0] = Poller.ranksWait(), null);
                after[me] = Poller.ranksWait();
            };
            if (me == 0 || !bucket) {
                meet.run();
                return;
            }
            Thread t = org.paratrain.comm.BackgroundThreads.of(meet, "bucket");
            t.start();
            try {
                t.join();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertEquals(java.util.Arrays.asList(null, null), thrown);
        assertTrue(!after[0] && !after[1], "nothing left told after the step");
        return seen[0];
    }

    /**
     * Many meetings in a row: the step runs once each time, sees every rank's buffer of that
     * meeting, and what it wrote is what each rank reads after: a sum against the closed form.
     */
    @Test
    void theStepRunsOnceAMeetingOnEveryBufferAndEveryRankSeesItsResult() throws InterruptedException {
        int k = 7;
        int rounds = 2000;
        Meeting m = new Meeting(k, new ReentrantLock());
        AtomicInteger steps = new AtomicInteger();
        List<Throwable> thrown = onThreads(k, me -> {
            long[] mine = new long[1];
            for (int r = 0; r < rounds; r++) {
                mine[0] = (long) r * 100 + me;
                m.meet(me, mine, 0, (buffers, offsets, leaders) -> {
                    steps.incrementAndGet();
                    long total = 0;
                    for (Object b : buffers) {
                        total += ((long[]) b)[0];
                    }
                    for (Object b : buffers) {
                        ((long[]) b)[0] = total;
                    }
                }, null);
                long expected = (long) r * 100 * k + (long) k * (k - 1) / 2;
                if (mine[0] != expected) {
                    throw new AssertionError("round " + r + ": rank " + me + " read " + mine[0] + ", expected " + expected);
                }
            }
        });
        for (Throwable t : thrown) {
            assertEquals(null, t);
        }
        assertEquals(rounds, steps.get());
    }

    /**
     * A rank woken at a meeting's end while every carrier is kept by computing ranks (here: the
     * rank that ran the step and spinning threads, 300 ms) returns late, and the meeting counts
     * that wait for it alone ({@link Meeting#lateNanos}); the rank that ran the step counts none,
     * and platform threads never count.
     */
    @Test
    void aRankWokenWhileTheCarriersComputeCountsItsWaitForOne() throws InterruptedException {
        int carriers = Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
            Runtime.getRuntime().availableProcessors());
        Meeting m = new Meeting(2, new ReentrantLock());
        long[] late = new long[2];
        Thread waiter = Thread.ofVirtual().start(() -> {
            m.meet(0, null, 0, (buffers, offsets, leaders) -> { }, null);
            late[0] = m.lateNanos(0);
        });
        while (waiter.getState() != Thread.State.WAITING) {
            Thread.sleep(1);
        }
        java.util.concurrent.atomic.AtomicBoolean release = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.CountDownLatch spinning = new java.util.concurrent.CountDownLatch(carriers - 1);
        List<Thread> spinners = new ArrayList<>();
        for (int c = 0; c < carriers - 1; c++) {
            spinners.add(Thread.ofVirtual().start(() -> {
                spinning.countDown();
                while (!release.get()) {
                    Thread.onSpinWait();
                }
            }));
        }
        assertTrue(spinning.await(10, java.util.concurrent.TimeUnit.SECONDS));
        Thread runner = Thread.ofVirtual().start(() -> {
            m.meet(1, null, 0, (buffers, offsets, leaders) -> { }, null);
            late[1] = m.lateNanos(1);
            long until = System.nanoTime() + 300_000_000L;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            release.set(true);
        });
        runner.join(10_000);
        waiter.join(10_000);
        release.set(true);
        for (Thread t : spinners) {
            t.join(10_000);
        }
        assertTrue(late[0] > 150_000_000L, "the woken rank waited for a carrier: " + late[0] / 1e6 + " ms");
        assertEquals(0L, late[1], "the rank that ran the step went straight on");
        // Platform threads: the OS runs a woken thread on any core, and no wait is counted.
        Meeting p = new Meeting(2, new ReentrantLock());
        Thread a = Thread.ofPlatform().start(() -> p.meet(0, null, 0, (buffers, offsets, leaders) -> { }, null));
        p.meet(1, null, 0, (buffers, offsets, leaders) -> { }, null);
        a.join(10_000);
        assertEquals(0L, p.lateNanos(0) + p.lateNanos(1));
    }

    /** A rank that never arrives: the others end with a timeout soon after the deadline, not never. */
    @Test
    void aRankThatNeverArrivesEndsTheOthersAtTheDeadline() throws InterruptedException {
        Meeting m = new Meeting(3, new ReentrantLock());
        Thread watch = m.watch(300, 8);
        long t0 = System.nanoTime();
        try {
            List<Throwable> thrown = onThreads(2, me -> m.meet(me, null, 0, (b, o, l) -> { }, null));
            double took = (System.nanoTime() - t0) / 1e9;
            for (Throwable t : thrown) {
                CommTimeoutException e = assertInstanceOf(CommTimeoutException.class, t);
                assertEquals(8, e.peer());
            }
            assertTrue(took >= 0.3 && took < 3, "took " + took + " s");
        } finally {
            watch.interrupt();
        }
    }

    /** A step that throws: its rank gets the error, the others a PeerFailedException, and none hangs. */
    @Test
    void aFailingStepEndsEveryRank() throws InterruptedException {
        Meeting m = new Meeting(4, new ReentrantLock());
        List<Throwable> thrown = onThreads(4, me -> m.meet(me, null, 0, (b, o, l) -> {
            throw new IllegalStateException("the step failed");
        }, null));
        int failed = 0;
        int told = 0;
        for (Throwable t : thrown) {
            if (t instanceof IllegalStateException) {
                failed++;
            } else {
                assertInstanceOf(PeerFailedException.class, t);
                told++;
            }
        }
        assertEquals(1, failed);
        assertEquals(3, told);
    }
}
