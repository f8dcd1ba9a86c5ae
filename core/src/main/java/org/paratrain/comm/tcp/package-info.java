/**
 * Ranks that talk over TCP: for schedulers that start tasks, not MPI processes (Spark's barrier
 * stages). {@link org.paratrain.comm.tcp.TcpEndpoint} forms an authenticated mesh;
 * {@link org.paratrain.comm.tcp.TcpCommunicator} implements the whole
 * {@link org.paratrain.comm.Communicator} contract on it; {@link org.paratrain.comm.tcp.TcpCluster}
 * runs ranks as threads over loopback.
 */
package org.paratrain.comm.tcp;
