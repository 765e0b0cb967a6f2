package dev.sluice.component;

import java.net.InetSocketAddress;

/**
 * A {@code host:port} endpoint as configuration files write it: {@code localhost:4317}, {@code
 * 0.0.0.0:4317}, {@code [::1]:4317}, or {@code :4317} for every interface.
 */
public record Endpoint(String host, int port) {
  public Endpoint {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port " + port + " is out of range 0-65535");
    }
  }

  /** Parses {@code host:port}; throws IllegalArgumentException with a message fit for users. */
  public static Endpoint parse(String text) {
    String value = text.trim();
    int colon = value.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException(
          "\"" + text + "\" is not an endpoint: expected host:port, such as localhost:4317");
    }
    String host = value.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    } else if (host.indexOf(':') >= 0) {
      throw new IllegalArgumentException(
          "\""
              + text
              + "\" is not an endpoint: write IPv6 addresses in brackets, such as [::1]:4317");
    }
    int port;
    try {
      port = Integer.parseInt(value.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "\"" + text + "\" is not an endpoint: the port must be a number");
    }
    return new Endpoint(host, port);
  }

  /** Whether the text parses; for {@link ComponentConfig#validate}. */
  public static void validate(String text, String key, ConfigProblems problems) {
    try {
      parse(text);
    } catch (IllegalArgumentException e) {
      problems.add(key, e.getMessage());
    }
  }

  /** The address to bind or connect to; an empty host means every interface. */
  public InetSocketAddress socketAddress() {
    return host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
  }

  @Override
  public String toString() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
