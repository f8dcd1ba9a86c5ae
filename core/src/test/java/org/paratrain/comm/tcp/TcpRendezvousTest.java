package org.paratrain.comm.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.paratrain.comm.BackendException;

/**
 * The rendezvous: every rank of an attempt gets every rank's address in rank order, attempts
 * are kept apart, a rank without the secret is not heard, and a missing rank ends the others'
 * wait at their deadline with a message that says so.
 */
class TcpRendezvousTest {
    /** A thread a rank: the common pool may have one thread on two cores, and each rank waits. */
    private static final java.util.concurrent.Executor THREADS = r -> Thread.ofVirtual().start(r);

    private static List<CompletableFuture<List<String>>> ranks(String at, int size, JobKey key, Duration timeout) {
        List<CompletableFuture<List<String>>> all = new ArrayList<>();
        for (int r = size - 1; r >= 0; r--) {            // in reverse: the answer is by rank, not by arrival
            int rank = r;
            all.add(0, CompletableFuture.supplyAsync(() -> TcpRendezvous.exchange(at, rank, size, "host-" + rank + ":"
                + (5000 + rank), key, timeout), THREADS));
        }
        return all;
    }

    @Test
    void everyRankGetsEveryAddressByRankAndAttemptsAreKeptApart() throws Exception {
        JobKey key = JobKey.random("driver");
        try (TcpRendezvous rv = TcpRendezvous.open("127.0.0.1", 3, key)) {
            var first = ranks(rv.address(), 3, key.forAttempt("stage 4 attempt 0"), Duration.ofSeconds(20));
            var second = ranks(rv.address(), 3, key.forAttempt("stage 4 attempt 1"), Duration.ofSeconds(20));
            List<String> expected = List.of("host-0:5000", "host-1:5001", "host-2:5002");
            for (var f : first) {
                assertEquals(expected, f.get());
            }
            for (var f : second) {
                assertEquals(expected, f.get());
            }
        }
    }

    @Test
    void aRankWithoutTheSecretIsNotHeardAndAMissingRankIsNamedAtTheDeadline() {
        JobKey key = JobKey.random("driver");
        try (TcpRendezvous rv = TcpRendezvous.open("127.0.0.1", 2, key)) {
            CompletableFuture<Throwable> stranger = CompletableFuture.supplyAsync(() -> {
                try {
                    TcpRendezvous.exchange(rv.address(), 1, 2, "evil:1", JobKey.random("a"), Duration.ofSeconds(2));
                    return null;
                } catch (RuntimeException e) {
                    return e;
                }
            }, THREADS);
            long t0 = System.nanoTime();
            BackendException e = assertThrows(BackendException.class, () -> TcpRendezvous.exchange(rv.address(), 0, 2,
                "h:1", key.forAttempt("a"), Duration.ofSeconds(2)));
            assertTrue(e.getMessage().startsWith("rank 0: not every rank of 2 reached the rendezvous"), e.getMessage());
            assertTrue(System.nanoTime() - t0 < 10e9);
            assertTrue(stranger.join() != null, "a rank without the secret was answered");
        }
    }
}
