package org.paratrain.optim;

/**
 * The learning rate as a function of the update number (0-based), kept apart from the
 * optimiser so that an optimiser's state never hides its schedule.
 */
@FunctionalInterface
public interface LearningRateSchedule {

    /**
     * {@return the learning rate for an update}
     * @param step the update's number, 0-based, counted over the whole run
     */
    double rate(long step);

    /**
     * {@return a schedule with the same rate at every step}
     * @param lr the rate, positive and finite
     */
    static LearningRateSchedule constant(double lr) {
        check(lr);
        return step -> lr;
    }

    /**
     * {@return {@code lr * factor^(step / every)}: a rate that drops by {@code factor} every {@code every} steps}
     * @param lr     the starting rate, positive and finite
     * @param every  steps between drops, at least 1
     * @param factor the multiplier at each drop, in (0, 1]
     */
    static LearningRateSchedule step(double lr, long every, double factor) {
        check(lr);
        if (every < 1 || !(factor > 0 && factor <= 1)) {
            throw new IllegalArgumentException("--schedule step needs an interval >= 1 and a factor in (0, 1]");
        }
        return step -> lr * Math.pow(factor, step / every);
    }

    /**
     * {@return a rate decaying from {@code lr} to 0 along half a cosine over {@code total} steps (0 after)}
     * @param lr    the starting rate, positive and finite
     * @param total the run's updates, at least 1
     */
    static LearningRateSchedule cosine(double lr, long total) {
        check(lr);
        if (total < 1) {
            throw new IllegalArgumentException("--schedule cosine needs at least 1 step, got " + total);
        }
        return step -> step >= total ? 0.0 : 0.5 * lr * (1 + Math.cos(Math.PI * step / total));
    }

    /**
     * {@return a rate rising linearly to {@code after}'s over the first {@code warmup} steps (from
     * 1/warmup of it), then {@code after}'s}
     * @param warmup steps the warm-up lasts, at least 0 (0: none)
     * @param after  the schedule during and after the warm-up
     */
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
