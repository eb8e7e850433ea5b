package cfscale.javaapp;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * A TCP proxy in front of a real PostgreSQL that loses one acknowledgement, as
 * scripts/test-support/lost-ack-proxy.js does: when the server reports a command whose tag matches,
 * that CommandComplete is held back until the ReadyForQuery that follows (sent after the
 * commit), then both sockets are closed without forwarding either. Fires once. Only the
 * server's messages are parsed, after the one-byte answer to an SSLRequest.
 */
final class LostAckProxy implements AutoCloseable {
  private static final int SSL_REQUEST_CODE = 80877103;
  private final ServerSocket server;
  private final String host;
  private final int port;
  private final Pattern tag;
  private final AtomicBoolean armed = new AtomicBoolean(true);
  final AtomicInteger losses = new AtomicInteger();

  LostAckProxy(String host, int port, Pattern tag) throws IOException {
    this.host = host;
    this.port = port;
    this.tag = tag;
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t = new Thread(this::accept, "lost-ack-proxy");
    t.setDaemon(true);
    t.start();
  }

  int port() {
    return server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket(host, port);
        AtomicBoolean sslRequest = new AtomicBoolean();
        Thread up = new Thread(() -> clientToServer(client, upstream, sslRequest));
        up.setDaemon(true);
        up.start();
        Thread down = new Thread(() -> serverToClient(upstream, client, sslRequest));
        down.setDaemon(true);
        down.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private static void clientToServer(Socket client, Socket upstream, AtomicBoolean sslRequest) {
    try (client; upstream) {
      InputStream in = client.getInputStream();
      OutputStream out = upstream.getOutputStream();
      byte[] b = new byte[65536];
      boolean first = true;
      for (int n; (n = in.read(b)) > 0; ) {
        if (first) {
          first = false;
          ByteBuffer bb = ByteBuffer.wrap(b, 0, n);
          sslRequest.set(n >= 8 && bb.getInt(0) == 8 && bb.getInt(4) == SSL_REQUEST_CODE); // before the server can answer
        }
        out.write(b, 0, n);
      }
    } catch (IOException e) {
      // either side closed
    }
  }

  private void serverToClient(Socket upstream, Socket client, AtomicBoolean sslRequest) {
    try (client; upstream) {
      InputStream in = upstream.getInputStream();
      OutputStream out = client.getOutputStream();
      int type = in.read();
      if (type >= 0 && sslRequest.get()) { // the one-byte answer to the SSLRequest
        out.write(type);
        type = in.read();
      }
      boolean holding = false;
      for (;; type = in.read()) {
        if (type < 0) {
          return;
        }
        byte[] len = in.readNBytes(4);
        int n = ByteBuffer.wrap(len).getInt();
        byte[] body = in.readNBytes(n - 4);
        if (!holding && type == 'C' && tag.matcher(new String(body, StandardCharsets.UTF_8)).find()
            && armed.compareAndSet(true, false)) {
          holding = true;
        } else if (holding && type == 'Z') {
          losses.incrementAndGet();
          return; // closes both sockets
        }
        if (!holding) {
          out.write(type);
          out.write(len);
          out.write(body);
        }
      }
    } catch (IOException e) {
      // either side closed
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
