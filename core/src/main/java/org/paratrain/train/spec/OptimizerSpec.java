package org.paratrain.train.spec;

import java.util.Locale;
import org.paratrain.optim.Adam;
import org.paratrain.optim.GlobalNormClipping;
import org.paratrain.optim.GradientDescent;
import org.paratrain.optim.LearningRateSchedule;
import org.paratrain.optim.Optimizer;

/**
 * How parameters are updated: the method, the learning rate and its schedule and warm-up,
 * momentum and weight decay. It owns the learning rate, so a schedule never disagrees with it.
 *
 * @param method       the update rule
 * @param learningRate the base learning rate, positive and finite
 * @param momentum     momentum of {@link Method#MOMENTUM} and {@link Method#NESTEROV}, in [0, 1); the
 *                     other methods do not use it and keep {@link #DEFAULT_MOMENTUM}, so that two specs
 *                     of the same run are equal
 * @param weightDecay  L2 weight decay (decoupled for Adam), finite and at least 0
 * @param schedule     how the learning rate changes with the step
 * @param warmupSteps  steps of linear warm-up before the schedule, at least 0
 * @param clipNorm     the largest global norm of the combined gradient an update takes (larger ones are
 *                     scaled down to it, {@link GlobalNormClipping}); 0 for no clipping
 */
public record OptimizerSpec(Method method, double learningRate, double momentum, double weightDecay,
                            Schedule schedule, long warmupSteps, double clipNorm) {

    /** The momentum unless one is given, and the value kept by methods that have none. */
    public static final double DEFAULT_MOMENTUM = 0.9;

    /** Adam's first-moment decay, as recorded. */
    public static final double BETA1 = 0.9;
    /** Adam's second-moment decay, as recorded. */
    public static final double BETA2 = 0.999;
    /** Adam's epsilon, as recorded. */
    public static final double EPSILON = 1e-8;

    /** Update rules. */
    public enum Method {
        /** Plain gradient descent, the paper's {@code w = w - alpha * g}. */
        GD,
        /** Heavy-ball momentum. */
        MOMENTUM,
        /** Nesterov momentum. */
        NESTEROV,
        /** Adam (with decoupled weight decay). */
        ADAM;

        /** {@return the name, as on the command line ({@code adam})} */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /**
         * The method of this name.
         *
         * @param s {@code gd}, {@code momentum}, {@code nesterov} or {@code adam}
         * @return the method
         * @throws SpecException for any other name
         */
        public static Method parse(String s) {
            for (Method m : values()) {
                if (m.label().equals(s)) {
                    return m;
                }
            }
            throw new SpecException("optimizer", "must be gd, momentum, nesterov or adam, got '" + s + "'");
        }
    }

    /** Checks every setting against its range. */
    public OptimizerSpec {
        SpecException.check(method != null, "optimizer", "must be gd, momentum, nesterov or adam");
        SpecException.check(learningRate > 0 && !Double.isInfinite(learningRate), "learning rate",
            "must be a positive finite number, got " + learningRate);
        SpecException.check(momentum >= 0 && momentum < 1, "momentum", "must be in [0, 1), got " + momentum);
        if (method != Method.MOMENTUM && method != Method.NESTEROV) {
            momentum = DEFAULT_MOMENTUM;
        }
        SpecException.check(weightDecay >= 0 && !Double.isInfinite(weightDecay), "weight decay",
            "must be a finite number >= 0, got " + weightDecay);
        SpecException.check(schedule != null, "schedule", "must be constant, cosine or step:EVERY:FACTOR");
        SpecException.check(warmupSteps >= 0, "warm-up steps", "must be at least 0, got " + warmupSteps);
        SpecException.check(clipNorm >= 0 && clipNorm < Double.POSITIVE_INFINITY, "clip norm",
            "must be a positive finite number (0: no clipping), got " + clipNorm);
    }

    /**
     * An update rule without clipping.
     *
     * @param method       the update rule
     * @param learningRate the base learning rate
     * @param momentum     momentum of the momentum methods
     * @param weightDecay  L2 weight decay
     * @param schedule     how the learning rate changes with the step
     * @param warmupSteps  steps of linear warm-up
     */
    public OptimizerSpec(Method method, double learningRate, double momentum, double weightDecay, Schedule schedule,
                         long warmupSteps) {
        this(method, learningRate, momentum, weightDecay, schedule, warmupSteps, 0.0);
    }

    /**
     * {@return plain gradient descent at this learning rate, constant, as the paper does}
     * @param learningRate the base learning rate
     */
    public static OptimizerSpec gd(double learningRate) {
        return new OptimizerSpec(Method.GD, learningRate, DEFAULT_MOMENTUM, 0, new Schedule.Constant(), 0);
    }

    /**
     * {@return this spec with another method}
     * @param m the new value
     */
    public OptimizerSpec withMethod(Method m) {
        return new OptimizerSpec(m, learningRate, momentum, weightDecay, schedule, warmupSteps, clipNorm);
    }

    /**
     * {@return this spec with another learning rate}
     * @param lr the learning rate
     */
    public OptimizerSpec withLearningRate(double lr) {
        return new OptimizerSpec(method, lr, momentum, weightDecay, schedule, warmupSteps, clipNorm);
    }

    /**
     * {@return this spec with another schedule and warm-up}
     * @param s the schedule
     * @param warmup warm-up steps
     */
    public OptimizerSpec withSchedule(Schedule s, long warmup) {
        return new OptimizerSpec(method, learningRate, momentum, weightDecay, s, warmup, clipNorm);
    }

    /**
     * {@return this spec with another momentum and weight decay}
     * @param m the new value
     * @param decay weight decay
     */
    public OptimizerSpec withMomentum(double m, double decay) {
        return new OptimizerSpec(method, learningRate, m, decay, schedule, warmupSteps, clipNorm);
    }

    /**
     * {@return this spec clipping the combined gradient to this global norm}
     * @param norm the largest norm an update takes, 0 for no clipping
     */
    public OptimizerSpec withClipNorm(double norm) {
        return new OptimizerSpec(method, learningRate, momentum, weightDecay, schedule, warmupSteps, norm);
    }

    /**
     * A fresh optimizer (no state yet).
     *
     * @param totalSteps the number of updates of the whole run, which a cosine schedule spans
     * @return the optimizer
     */
    public Optimizer newOptimizer(long totalSteps) {
        LearningRateSchedule s = schedule.of(learningRate, totalSteps);
        if (warmupSteps > 0) {
            s = LearningRateSchedule.warmup(warmupSteps, s);
        }
        Optimizer o = switch (method) {
            case ADAM -> new Adam(s, BETA1, BETA2, EPSILON, weightDecay);
            case MOMENTUM -> new GradientDescent(s, momentum, false, weightDecay);
            case NESTEROV -> new GradientDescent(s, momentum, true, weightDecay);
            case GD -> new GradientDescent(s, 0.0, false, weightDecay);
        };
        return clipNorm > 0 ? new GlobalNormClipping(o, clipNorm) : o;
    }

    /** How the learning rate changes with the step (before any warm-up). */
    public sealed interface Schedule {

        /** {@return the schedule as the command line and the records write it ({@code step:100:0.5})} */
        String label();

        /**
         * {@return the schedule starting at {@code lr}, over a run of {@code totalSteps}}
         * @param lr the learning rate
         * @param totalSteps updates in the whole run
         */
        LearningRateSchedule of(double lr, long totalSteps);

        /**
         * The schedule written as {@link #label()} writes it.
         *
         * @param s {@code constant}, {@code cosine} or {@code step:EVERY:FACTOR}
         * @return the schedule
         * @throws SpecException for anything else
         */
        static Schedule parse(String s) {
            if (s.equals("constant")) {
                return new Constant();
            }
            if (s.equals("cosine")) {
                return new Cosine();
            }
            String[] p = s.split(":", -1);
            if (p.length == 3 && p[0].equals("step")) {
                try {
                    return new Step(Long.parseLong(p[1]), Double.parseDouble(p[2]));
                } catch (NumberFormatException | SpecException e) {
                    throw new SpecException("schedule", "step:EVERY:FACTOR needs EVERY, steps between drops, a whole "
                        + "number >= 1, and FACTOR, the drop, in (0, 1], e.g. step:100:0.5; got '" + s + "'");
                }
            }
            throw new SpecException("schedule", "must be constant, cosine or step:EVERY:FACTOR, got '" + s + "'");
        }

        /** The same rate at every step. */
        record Constant() implements Schedule {
            @Override
            public String label() {
                return "constant";
            }

            @Override
            public LearningRateSchedule of(double lr, long totalSteps) {
                return LearningRateSchedule.constant(lr);
            }
        }

        /** Cosine decay from the rate to 0 over the run. */
        record Cosine() implements Schedule {
            @Override
            public String label() {
                return "cosine";
            }

            @Override
            public LearningRateSchedule of(double lr, long totalSteps) {
                return LearningRateSchedule.cosine(lr, totalSteps);
            }
        }

        /**
         * The rate times {@code factor} every {@code every} steps.
         *
         * @param every  steps between changes, at least 1
         * @param factor multiplier, in (0, 1]
         */
        record Step(long every, double factor) implements Schedule {
            /** Checks the period and the factor. */
            public Step {
                SpecException.check(every >= 1 && factor > 0 && factor <= 1, "schedule",
                    "must be step:EVERY:FACTOR with EVERY >= 1 and FACTOR in (0, 1], got step:" + every + ":"
                        + factor);
            }

            @Override
            public String label() {
                return "step:" + every + ":" + factor;
            }

            @Override
            public LearningRateSchedule of(double lr, long totalSteps) {
                return LearningRateSchedule.step(lr, every, factor);
            }
        }
    }
}
