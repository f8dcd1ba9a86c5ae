package org.paratrain.optim;

/**
 * The learning rate as a function of the update number (0-based), kept apart from the
 * optimiser so that an optimiser's state never hides its schedule.
 */
@FunctionalInterface
public interface LearningRateSchedule {

    /** The learning rate for update {@code step}. */
    double rate(long step);

    /** The same rate at every step. */
    static LearningRateSchedule constant(double lr) {
        check(lr);
        return step -> lr;
    }

    /** {@code lr * factor^(step / every)}: drops by {@code factor} every {@code every} steps. */
    static LearningRateSchedule step(double lr, long every, double factor) {
        check(lr);
        if (every < 1 || !(factor > 0 && factor <= 1)) {
            throw new IllegalArgumentException("--schedule step needs an interval >= 1 and a factor in (0, 1]");
        }
        return step -> lr * Math.pow(factor, step / every);
    }

    /** Cosine decay from {@code lr} to 0 over {@code total} steps (0 after). */
    static LearningRateSchedule cosine(double lr, long total) {
        check(lr);
        if (total < 1) {
            throw new IllegalArgumentException("--schedule cosine needs at least 1 step, got " + total);
        }
        return step -> step >= total ? 0.0 : 0.5 * lr * (1 + Math.cos(Math.PI * step / total));
    }

    /** Linear warm-up from lr/warmup to lr over {@code warmup} steps, then {@code after}. */
    static LearningRateSchedule warmup(long warmup, LearningRateSchedule after) {
        if (warmup < 0) {
            throw new IllegalArgumentException("--warmup-steps must be at least 0, got " + warmup);
        }
        return step -> step < warmup ? after.rate(step) * (step + 1) / warmup : after.rate(step);
    }

    private static void check(double lr) {
        if (!(lr > 0) || Double.isInfinite(lr)) {
            throw new IllegalArgumentException("--lr must be a positive finite number, got " + lr);
        }
    }
}
