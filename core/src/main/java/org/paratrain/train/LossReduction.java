package org.paratrain.train;

/** How per-sample losses (and their gradients) combine into the training objective. */
public enum LossReduction {
    /** The sum over all samples, as in the paper; learning rates must shrink as data grows. */
    SUM,
    /** The mean over all samples; learning rates carry over between data sizes. */
    MEAN
}
