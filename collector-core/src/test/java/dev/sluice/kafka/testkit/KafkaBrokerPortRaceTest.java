package dev.sluice.kafka.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The race between choosing a free port and the child binding it, played out for real: the first
 * port the broker is handed is one this test holds open, as another process would.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaBrokerPortRaceTest {
  private static final String HOST = "127.0.0.1";
  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(20);

  /** Held from before the broker chooses its ports until the class is done. */
  private static final ServerSocket TAKEN = listen(0);

  /** Every port handed to the broker, in order. */
  private static final List<Integer> HANDED = new CopyOnWriteArrayList<>();

  @RegisterExtension
  static final KafkaBroker BROKER = new KafkaBroker(1, KafkaBrokerPortRaceTest::takenPortFirst);

  @AfterAll
  static void releaseTakenPort() throws IOException {
    TAKEN.close();
  }

  @Test
  @Order(1)
  void startsOnFreshPortsWhenAnotherProcessHoldsTheChosenOne() throws Exception {
    assertThat(HANDED.get(0)).isEqualTo(TAKEN.getLocalPort());
    // The first pair was given up and a second one chosen.
    assertThat(HANDED).hasSizeGreaterThanOrEqualTo(4);
    int brokerPort = port(BROKER.bootstrapServers());
    assertThat(brokerPort)
        .isNotEqualTo(TAKEN.getLocalPort())
        .isIn(HANDED.subList(2, HANDED.size()));

    Collection<Node> nodes = describeCluster(BROKER.bootstrapServers());
    assertThat(nodes)
        .singleElement()
        .satisfies(node -> assertThat(node.port()).isEqualTo(brokerPort));
    assertThat(TAKEN.isClosed()).isFalse();
  }

  @Test
  @Order(2)
  void restartOnATakenPortFailsNamingThePortAndKeepsTheAddress() {
    String address = BROKER.bootstrapServers();
    int brokerPort = port(address);
    BROKER.stop();

    try (ServerSocket squatter = listen(brokerPort)) {
      assertThatThrownBy(BROKER::start)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("another process holds " + address)
          .hasMessageContaining("does not move");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(BROKER.isRunning()).isFalse();
    assertThat(BROKER.bootstrapServers()).isEqualTo(address);
  }

  private static int takenPortFirst() {
    int port = HANDED.isEmpty() ? TAKEN.getLocalPort() : KafkaBroker.freePort();
    HANDED.add(port);
    return port;
  }

  private static Collection<Node> describeCluster(String bootstrapServers) throws Exception {
    Properties properties = new Properties();
    properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    try (Admin admin = Admin.create(properties)) {
      return admin.describeCluster().nodes().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private static int port(String hostAndPort) {
    return Integer.parseInt(hostAndPort.substring(hostAndPort.lastIndexOf(':') + 1));
  }

  /** A listening loopback socket, as another process would hold it; {@code 0} for any port. */
  private static ServerSocket listen(int port) {
    try {
      ServerSocket socket = new ServerSocket();
      // A port the broker just let go of may still have connections in TIME_WAIT.
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), port));
      return socket;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
