package org.paratrain.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One measurement of {@code bench network}: a row of its table, CSV, JSON and summary. Apart
 * from the command, which makes the rows, because {@link NetworkReport} reads them as much: the
 * figures a row derives (ratio, the cost model's error, the key and overlap the report names it
 * by) stay with the row.
 *
 * @param link      the link's rate, or unshaped
 * @param model     mlp or cnn
 * @param layout    hosts x ranks a host
 * @param sum       paratrain's sum
 * @param allreduce paratrain's allreduce as asked ({@code auto} too)
 * @param chosen    the allreduce that ran (auto's pick)
 * @param bucket    paratrain's bucket size ({@code 0}: the whole gradient after backward)
 * @param paratrain paratrain's best samples per second
 * @param exchange  the share of that run's time spent exchanging (an overlap's bound)
 * @param torch     PyTorch DDP's best samples per second, NaN where it did not run
 * @param params    a hash of the trained parameters' bits
 * @param stepMs    the measured exchange a step, in milliseconds, the mean over the timed steps: step by step
 *                  the least over the ranks (the rank that reaches the exchange last waits for no one)
 * @param waitMs    rank 0's exchange a step beyond that: its wait for slower ranks
 * @param modelMs   the cost model's prediction of it, the mean step's, fitted to this link's bare allreduce (NaN: none)
 * @param fit       the worker's result, whose link fit goes to machine-LINK-LAYOUT.json for {@code plan}
 */
record NetworkRow(String link, String model, String layout, String sum, String allreduce, String chosen, String bucket,
                  double paratrain, double exchange, double torch, String params, double stepMs, double waitMs,
                  double modelMs, JsonNode fit) {
    double ratio() {
        return paratrain / torch;
    }

    /**
     * {@return the median step's exchange, in milliseconds (the worker's {@code
     * exchange_median_ms_per_step}), or the mean where a worker did not tell it}
     */
    double medianMs() {
        double m = fit == null ? Double.NaN : fit.path("exchange_median_ms_per_step").asDouble(Double.NaN);
        return Double.isNaN(m) ? stepMs : m;
    }

    /** {@return the cost model's relative error, predicted / measured - 1, its mean step against the mean step} */
    double error() {
        return modelMs / stepMs - 1;
    }

    /**
     * {@return the cost model's typical step, in milliseconds (the worker's {@code
     * predicted_exchange_median_ms_per_step}: fitted to the link's median calls, the conversions'
     * median rounds), or the mean's prediction where a worker did not tell it}
     */
    double medianModelMs() {
        double m = fit == null ? Double.NaN : fit.path("predicted_exchange_median_ms_per_step").asDouble(Double.NaN);
        return Double.isNaN(m) ? modelMs : m;
    }

    /**
     * {@return the cost model's relative error against the median step, its typical step's} The
     * mean also holds the steps in which the OS took a host's one core for milliseconds (the JIT,
     * the collector, the kernel's network work), which on a sub-millisecond exchange can double
     * it: unshaped, the MLP's steps took 0.35-0.9 ms as a rule and 4-8 ms in 5 of 42; the model's
     * mean is fitted to the calls' and the conversions' means, which hold such stalls as often as
     * the calibration met them. Where buckets hide the exchange in some steps and not in others,
     * the median is one of the two and the mean is the figure.
     */
    double medianError() {
        return medianModelMs() / medianMs() - 1;
    }

    /** {@return the target for paratrain / DDP in float32} */
    double target() {
        return model.equals("mlp") ? 1.0 : 1.5;
    }

    String key() {
        return model + "_" + link + "_" + layout + "_" + sum.replace("fixed:", "fixed") + "_bucket" + bucket
            + (allreduce.equals("ring") ? "" : "_" + allreduce.replace("-", ""));
    }

    /** {@return whether {@code o} is the same measurement but for the allreduce} */
    boolean sameButAllreduce(NetworkRow o) {
        return o.link.equals(link) && o.model.equals(model) && o.layout.equals(layout) && o.sum.equals(sum)
            && o.bucket.equals(bucket);
    }

    /** {@return the row's overlap as the table names it: off, or the bucket size} */
    String overlap() {
        int n = fit == null ? 0 : fit.path("buckets").asInt(0);
        // A size that cuts no layer boundary sends the gradient whole: say so beside it.
        return bucket.equals("0") ? "off" : n == 0 ? bucket : bucket + " (" + n + (n == 1 ? " bucket)" : " buckets)");
    }
}
