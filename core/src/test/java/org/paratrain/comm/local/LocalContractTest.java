package org.paratrain.comm.local;

import java.time.Duration;
import java.util.List;
import org.paratrain.comm.CommunicatorContract;

/** The shared contract on ranks as threads of this JVM. */
class LocalContractTest extends CommunicatorContract {
    @Override
    protected <T> List<T> run(int p, Duration timeout, LocalCluster.RankTask<T> task) {
        return LocalCluster.run(p, timeout, task);
    }

    @Override
    protected String backendName() {
        return "local";
    }
}
