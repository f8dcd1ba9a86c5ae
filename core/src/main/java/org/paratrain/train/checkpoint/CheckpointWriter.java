package org.paratrain.train.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.paratrain.train.TrainingState;

/**
 * Writes checkpoints on a thread of its own, so that training goes on while one reaches the
 * disk. At most one write is in flight: a new checkpoint waits for the previous one, so a
 * slow disk slows training down rather than piling up copies of the state. A failed write
 * fails the run at the next checkpoint or at {@link #close}, with the reason.
 */
public final class CheckpointWriter implements Consumer<TrainingState>, AutoCloseable {
    private final CheckpointStore store;
    private final JsonNode meta;
    private final Consumer<Path> written;
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "checkpoint-writer");
        t.setDaemon(true);
        return t;
    });
    private Future<?> pending;

    /**
     * A writer with a thread of its own, started by the first checkpoint and ended by {@link #close}.
     *
     * @param store   where checkpoints go
     * @param meta    what every checkpoint records about its run
     * @param written told each file written, on the writer's thread
     */
    public CheckpointWriter(CheckpointStore store, JsonNode meta, Consumer<Path> written) {
        this.store = store;
        this.meta = meta;
        this.written = written;
    }

    /** Queues {@code state} (which the trainer no longer touches) for writing. */
    @Override
    public synchronized void accept(TrainingState state) {
        await();
        pending = thread.submit(() -> written.accept(store.write(state, meta)));
    }

    /** Waits for the last write; rethrows its failure. */
    @Override
    public synchronized void close() {
        try {
            await();
        } finally {
            thread.shutdown();
        }
    }

    private void await() {
        if (pending == null) {
            return;
        }
        Future<?> f = pending;
        pending = null;
        boolean interrupted = false;
        while (true) {
            try {
                f.get();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
