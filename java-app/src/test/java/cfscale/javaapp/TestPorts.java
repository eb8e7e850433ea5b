package cfscale.javaapp;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What the tests that start a PostgreSQL cluster of their own need: a free port of java-app's
 * range in the repository's port table (ports.json), and a fresh directory for the cluster that
 * the `postgres` user can enter (pg-cluster.sh runs it as postgres when we are root). Fresh,
 * so that no run sees the rows of an earlier one.
 */
final class TestPorts {
  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private TestPorts() {}

  /** A port of range "java-app" that nothing listens on right now. */
  static int freePort() throws IOException {
    String[] range = new ObjectMapper().readTree(ROOT.resolve("ports.json").toFile())
        .path("ranges").path("java-app").path("ports").asText().split("-");
    int from = Integer.parseInt(range[0]);
    int to = Integer.parseInt(range[1]);
    for (int i = 0; i < 50; i++) {
      int port = ThreadLocalRandom.current().nextInt(from, to + 1);
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return port;
      } catch (IOException taken) {
        // try another
      }
    }
    throw new IOException("no free port in " + from + "-" + to);
  }

  /** A new directory under the temp dir for a cluster, mode 0755 (a cluster's data dir goes inside). */
  static Path clusterDir(String prefix) throws IOException {
    Path dir = Files.createTempDirectory(prefix);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    return dir.resolve("pg");
  }

  /** Removes what clusterDir made. */
  static void remove(Path clusterDir) throws IOException {
    try (var paths = Files.walk(clusterDir.getParent())) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
