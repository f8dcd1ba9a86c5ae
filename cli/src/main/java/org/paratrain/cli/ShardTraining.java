package org.paratrain.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import org.paratrain.data.BlockSharding;
import org.paratrain.data.Dataset;
import org.paratrain.data.IdxFormat;
import org.paratrain.data.PaperFormat;
import org.paratrain.experiment.ModelFile;
import org.paratrain.experiment.Provenance;
import org.paratrain.experiment.RunWriter;
import org.paratrain.cli.experiment.TrainingData;
import org.paratrain.train.Backend;
import org.paratrain.train.Divergence;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.TrainingState;
import org.paratrain.train.spec.DataSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * One rank of an MPI job that reads only the samples of its own blocks (full batch, the
 * paper's or the IDX format, a known number of classes): data too large for every rank to
 * hold is read once in all, a shard per rank.
 */
final class ShardTraining {
    private ShardTraining() { }

    /** Reads this rank's blocks of {@code c}'s data and trains on them; rank 0 reports. */
    static void run(TrainCommand c, TrainSpec asked, Provenance provenance) {
        TrainSpec spec = asked;
        DataSpec data = c.dataSpec();
        boolean idx = data.format() == DataSpec.Format.IDX;
        int total = idx ? IdxFormat.count(data.x()) : PaperFormat.countSamples(data.x());
        int blockSize = spec.run().blockSize();
        BlockSharding sh = blockSize == 0 ? BlockSharding.byDefault(total) : new BlockSharding(total, blockSize);
        // This process's ranks are p*K .. p*K+K-1: it reads their blocks, one contiguous range.
        int process = Backend.mpiWorld().rank();
        int k = Backend.mpiRanksPerProcess();
        int rank = process * k;
        int from = sh.blockStart(sh.firstBlock(rank, spec.nodes()));
        int to = sh.blockStart(sh.endBlock(rank + k - 1, spec.nodes()));
        Dataset shard = idx ? IdxFormat.readRange(data.x(), data.y(), from, to)
            : PaperFormat.readRange(data.x(), data.y(), from, to, total);
        int classes = spec.model().classes();   // given: shards are read only when the classes need no counting
        if (from < to) {
            spec.check(shard);
        }
        if (asked.exchange().isAuto()) {
            spec = LinkAuto.resolve(asked, shard.features(), classes, total, c.out());
        }
        TrainSpec run = spec;
        JsonNode meta = c.checkpoints.active() && rank == 0 ? c.meta(spec, TrainingData.fingerprint(data), provenance) : null;
        TrainingState resumed = c.checkpoints.resume == null ? null
            : CheckpointOptions.load(c.checkpoints.resume, null, w -> { });
        c.checkpoints.readInit(spec.model(), shard.features(), classes, null);   // paper and IDX files: no names
        ObjectNode init = c.checkpoints.initRecord(resumed != null, rank == 0 ? c.out()
            : new java.io.PrintWriter(java.io.Writer.nullWriter()));
        TrainingResult r;
        // Rank 0 shows progress (--log-every) as on every other path; the others stay silent.
        try (MonitorOptions.Display display = c.monitor.display(spec.epochs(), c.out(),
            rank == 0 ? c.err() : null, (epoch, h) -> { })) {
            r = c.checkpoints.onMpiRank(meta, resumed, rank == 0 ? display : null, control -> Training.mpiShard(shard,
                from, to - from, total, classes, run, control));
        }
        if (r == null) {
            return;
        }
        Divergence.checkFinal(r, spec.optimizer().learningRate());
        c.out().printf(Locale.ROOT, k == 1 ? "(each rank read only the samples of its own blocks: rank 0, %d of %d)%n"
            : "(each process read only the samples of its ranks' blocks: process 0, %d of %d)%n", to - from, total);
        TrainReport.print(c.out(), spec.model().kind(), total, shard.features(), r, spec.epochs());
        if (c.out != null) {
            ObjectNode d = TrainingData.record(data, total, shard.features());
            d.put("read", k == 1 ? "each rank its own blocks" : "each process its ranks' blocks");
            ModelFile model = new ModelFile(spec.model(), shard.features(), classes, r.params(), null, null,
                org.paratrain.data.Columns.generated(shard.features()), data.format());
            ObjectNode extra = RunWriter.json().createObjectNode();
            if (init != null) {
                extra.set("init_from", init);
            }
            TrainReport.write(c.out(), c.out, r, spec, model, d, extra, provenance);
        }
    }
}
