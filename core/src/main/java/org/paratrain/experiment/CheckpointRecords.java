package org.paratrain.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.paratrain.train.TrainingState;
import org.paratrain.train.checkpoint.CheckpointFile;
import org.paratrain.train.checkpoint.CheckpointStore;

/**
 * What a checkpoint records about the run it belongs to, and the check made before a run
 * continues from one: the same settings (by {@link SpecCodec}, node count and exchange
 * aside) and the same data (by {@link DataFingerprint}). One place for the command line and
 * the Java API.
 */
public final class CheckpointRecords {
    private CheckpointRecords() { }

    /**
     * The record every checkpoint of a run carries.
     *
     * @param settings    from {@link SpecCodec#encode}
     * @param fingerprint from {@link DataFingerprint}
     * @param provenance  how the run was started
     * @return the record, with fields {@code settings}, {@code data} and {@code provenance}
     */
    public static ObjectNode meta(ObjectNode settings, ObjectNode fingerprint, ObjectNode provenance) {
        ObjectNode m = RunWriter.json().createObjectNode();
        m.set("settings", settings);
        m.set("data", fingerprint);
        m.set("provenance", provenance);
        return m;
    }

    /**
     * The state to continue from: the newest intact checkpoint at {@code from} (a directory
     * or a file), checked against this run's {@code meta} unless it is null.
     *
     * @param from     a checkpoint directory or file
     * @param meta     this run's record, or null to skip the check (a rank whose front
     *                 process has checked already)
     * @param warnings told about every newer checkpoint skipped as damaged
     * @return the state
     * @throws IllegalArgumentException naming every difference, if the checkpoint belongs to another run
     */
    public static TrainingState load(Path from, JsonNode meta, Consumer<String> warnings) {
        return load(from, meta, warnings, file -> { });
    }

    /**
     * As {@link #load(Path, JsonNode, Consumer)}, telling {@code loaded} which file the state came from.
     *
     * @param from     a checkpoint file, or a directory of them (the newest intact one is taken)
     * @param meta     this run's record, to compare with the checkpoint's; null to skip the check
     * @param warnings receives a line for each checkpoint skipped as damaged, and one when the
     *                 checkpoint keeps no grids for a fixed-point sum (written before it did)
     * @param loaded   receives the file read
     * @return the state to continue from
     */
    public static TrainingState load(Path from, JsonNode meta, Consumer<String> warnings, Consumer<Path> loaded) {
        CheckpointFile.Contents c = CheckpointStore.newest(from, warnings);
        loaded.accept(c.file());
        if (meta != null) {
            List<String> diff = new ArrayList<>(SpecCodec.differences(c.meta().path("settings"),
                meta.path("settings")));
            diff.addAll(DataFingerprint.differences(c.meta().path("data"), meta.path("data")));
            if (!diff.isEmpty()) {
                throw new IllegalArgumentException("--resume " + from + ": the checkpoint belongs to another run: "
                    + String.join("; ", diff));
            }
        }
        if (c.state().sumGrids().length == 0 && c.meta().path("settings").path("sum").asText("").startsWith("fixed")) {
            warnings.accept(c.file() + " was written before checkpoints kept the fixed-point sum's grids: the steps "
                + "from here fix them afresh, so the bits may differ from those of a run that never stopped");
        }
        return c.state();
    }
}
