package dev.sluice.service.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LogFormatTest {
  /** The logger grpc-java's server stream logs with, looked up by name as grpc-java does. */
  private static final String GRPC_SERVER_STREAM =
      io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder.class.getPackageName()
          + ".NettyServerStream";

  @AfterEach
  void restoreLogging() throws Exception {
    LogManager.getLogManager().readConfiguration();
  }

  @Test
  void namesTheGrpcServerStreamClassThatGrpcJavaShips() throws Exception {
    assertThat(Class.forName(GRPC_SERVER_STREAM).getName())
        .isEqualTo(LogFormat.GRPC_SERVER_STREAM.getName());
  }

  @Test
  void keepsGrpcServerStreamWarningsAboutRefusedMessagesOutOfTheLogAboveDebug() {
    LogFormat.install("warn", "console");

    assertThat(Logger.getLogger(GRPC_SERVER_STREAM).isLoggable(Level.WARNING)).isFalse();
    assertThat(Logger.getLogger(GRPC_SERVER_STREAM).isLoggable(Level.SEVERE)).isTrue();
    assertThat(
            Logger.getLogger("io.grpc.netty.shaded.io.grpc.netty.NettyServerHandler")
                .isLoggable(Level.WARNING))
        .isTrue();
  }

  @Test
  void logsGrpcServerStreamWarningsAtDebug() {
    LogFormat.install("debug", "console");

    assertThat(Logger.getLogger(GRPC_SERVER_STREAM).isLoggable(Level.FINE)).isTrue();
  }
}
