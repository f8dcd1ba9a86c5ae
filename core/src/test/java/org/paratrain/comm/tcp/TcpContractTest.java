package org.paratrain.comm.tcp;

import java.time.Duration;
import java.util.List;
import org.paratrain.comm.CommunicatorContract;
import org.paratrain.comm.local.LocalCluster;

/** The shared contract on ranks that talk over loopback TCP, as Spark's tasks do. */
class TcpContractTest extends CommunicatorContract {
    @Override
    protected <T> List<T> run(int p, Duration timeout, LocalCluster.RankTask<T> task) {
        return TcpCluster.run(p, timeout, task);
    }

    @Override
    protected String backendName() {
        return "tcp";
    }
}
