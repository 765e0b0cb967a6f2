package dev.sluice.exporter.otlp;

import dev.sluice.component.TlsServerConfig;
import dev.sluice.component.tls.TlsLoader;
import dev.sluice.component.tls.TlsMaterial;
import java.io.IOException;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Logger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

/**
 * A JDK TLS server on loopback that completes each handshake, records the protocol and cipher suite
 * negotiated, and closes the connection: what a client offered, seen from the other side. It offers
 * h2 over ALPN, as a gRPC server does.
 */
final class HandshakeRecorder implements AutoCloseable {
  private static final int MAX_CONNECTIONS = 16;
  private static final int READ_TIMEOUT_MILLIS = 5_000;

  private final SSLServerSocket server;
  private final Thread acceptor;
  private final List<String> handshakes = new CopyOnWriteArrayList<>();

  HandshakeRecorder(TlsServerConfig tls) throws Exception {
    TlsMaterial material = TlsLoader.server(tls, "", Logger.getLogger("test"));
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(material.keyManagers().getKeyManagers(), null, null);
    server =
        (SSLServerSocket)
            context
                .getServerSocketFactory()
                .createServerSocket(0, 50, InetAddress.getLoopbackAddress());
    SSLParameters parameters = server.getSSLParameters();
    parameters.setApplicationProtocols(new String[] {"h2"});
    server.setSSLParameters(parameters);
    acceptor = new Thread(this::accept, "handshake-recorder");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  private void accept() {
    for (int i = 0; i < MAX_CONNECTIONS; i++) {
      try (SSLSocket socket = (SSLSocket) server.accept()) {
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        socket.startHandshake();
        handshakes.add(
            socket.getSession().getProtocol() + " " + socket.getSession().getCipherSuite());
      } catch (IOException e) {
        if (server.isClosed()) {
          return;
        }
        handshakes.add("failed: " + e.getMessage());
      }
    }
  }

  int port() {
    return server.getLocalPort();
  }

  /** Each connection's "protocol suite", or "failed: why". */
  List<String> handshakes() {
    return handshakes;
  }

  @Override
  public void close() throws Exception {
    server.close();
    acceptor.join(READ_TIMEOUT_MILLIS);
  }
}
