package org.paratrain.cli;

import java.util.Map;
import org.paratrain.train.spec.SpecException;

/**
 * Which option gives each setting of the specs: the specs speak of the {@code learning rate},
 * the user wrote {@code --lr}, and an error must name what the user wrote.
 */
final class SpecOptions {
    private static final Map<String, String> OPTIONS = Map.ofEntries(
        Map.entry("model", "--model"), Map.entry("classes", "--classes"), Map.entry("layers", "--layers"),
        Map.entry("activation", "--activation"), Map.entry("optimizer", "--optimizer"),
        Map.entry("learning rate", "--lr"), Map.entry("momentum", "--momentum"),
        Map.entry("weight decay", "--weight-decay"), Map.entry("schedule", "--schedule"),
        Map.entry("warm-up steps", "--warmup-steps"), Map.entry("nodes", "--nodes"), Map.entry("epochs", "--epochs"),
        Map.entry("batch size", "--batch-size"), Map.entry("loss reduction", "--loss-reduction"),
        Map.entry("block size", "--block-size"), Map.entry("rebalance", "--rebalance"),
        Map.entry("bucket size", "--bucket-size"), Map.entry("exchange", "--allreduce"),
        Map.entry("format", "--format"), Map.entry("features", "--x"), Map.entry("labels", "--labels"),
        Map.entry("test labels", "--test-labels"), Map.entry("test fraction", "--test-fraction"),
        Map.entry("test data", "--test-data"), Map.entry("sum", "--sum"), Map.entry("precision", "--precision"),
        Map.entry("image-shape", "--image-shape"), Map.entry("clip norm", "--clip-norm"),
        Map.entry("class weights", "--class-weight"), Map.entry("label smoothing", "--label-smoothing"));

    private SpecOptions() { }

    /** {@return the error as the command line says it: the option in place of the setting} */
    static String message(SpecException e) {
        return OPTIONS.getOrDefault(e.setting(), e.setting()) + " " + e.requirement();
    }
}
