package org.paratrain.comm.tcp;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.paratrain.comm.CommTimeoutException;
import org.paratrain.comm.RankFailedException;

/** Joining a job: a rank of another attempt (a retried stage's stale task) is refused both ways. */
class TcpEndpointTest {

    @Test
    void anInterruptedRankEndsAtOnceAndItsPeerLearnsWhy() throws Exception {
        // A cancelled Spark task is interrupted: the wait must end now, not at the deadline (60 s here).
        RankFailedException e = assertThrows(RankFailedException.class, () -> TcpCluster.run(2, Duration.ofSeconds(60),
            comm -> {
                if (comm.rank() == 1) {
                    Thread me = Thread.currentThread();
                    new Thread(() -> {
                        sleep(300);
                        me.interrupt();
                    }).start();
                }
                long t0 = System.nanoTime();
                try {
                    comm.recv(new double[1], 0, 1, 1 - comm.rank(), 5);      // nobody sends
                } finally {
                    assertTrue(System.nanoTime() - t0 < 10_000_000_000L, "the wait lasted past 10 s");
                }
                return null;
            }));
        assertTrue(e.getMessage().contains("rank 1") && e.getMessage().contains("interrupted"), e.getMessage());
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aRankOfAnotherAttemptIsRefusedAndTheWaitingRankSaysSo() throws Exception {
        JobKey now = JobKey.random("stage-7-attempt-1");
        JobKey stale = now.forAttempt("stage-7-attempt-0");
        TcpEndpoint zero = TcpEndpoint.listen("127.0.0.1");
        TcpEndpoint one = TcpEndpoint.listen("127.0.0.1");
        List<String> addresses = List.of(zero.address(), one.address());
        CompletableFuture<Throwable> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                zero.connect(0, addresses, now, Duration.ofSeconds(3)).close();
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
        UncheckedIOException refused = assertThrows(UncheckedIOException.class,
            () -> one.connect(1, addresses, stale, Duration.ofSeconds(3)));
        assertTrue(refused.getMessage().contains("does not hold this job's key"), refused.getMessage());
        Throwable t = waiting.get();
        assertTrue(t instanceof CommTimeoutException, String.valueOf(t));
        assertTrue(t.getMessage().contains("rank 1") && t.getMessage().contains("refused 1 connection"),
            t.getMessage());
    }

    @Test
    void aKeyNeedsSixteenBytesAndNeverPrintsItsSecret() {
        assertThrows(IllegalArgumentException.class, () -> new JobKey(new byte[8], "a"));
        JobKey k = JobKey.random("job-1");
        assertTrue(!k.toString().contains(k.secretHex()), k.toString());
    }
}
