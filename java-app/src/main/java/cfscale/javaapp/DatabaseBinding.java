package cfscale.javaapp;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where one PostgreSQL database is, how to log in, and the TLS its broker asks for, as
 * pgjdbc takes them: a JDBC URL without credentials (sslmode, and sslrootcert when the
 * credentials carry a CA certificate) plus user and password. {@link #toString()} masks
 * the password, so a binding can be logged as it is.
 *
 * sslmode, the same rule in every part (docs/bindings.md): from the URI's query, else
 * credentials.sslmode, else the jdbcUrl's; without one, a CA certificate means verify-ca,
 * require_ssl or a jdbcUrl with ssl=true means require, else disable. As in libpq, require
 * with a CA certificate verifies the chain (verify-ca); pgjdbc's require never verifies.
 * A client certificate (sslcert with sslkey, PEM; Cloud SQL asks for one) goes to pgjdbc as
 * files: the certificate as PEM, the key as PKCS-8 DER (pgjdbc 42.7.7's LazyKeyManager reads
 * nothing else), converted here from PKCS-8 or PKCS#1 RSA PEM.
 *
 * @param source   where it came from, for messages (e.g. {@code DATABASE_URL}, {@code VCAP_SERVICES binding "java-db"})
 * @param jdbcUrl  {@code jdbc:postgresql://host:port/db?sslmode=...}, no credentials
 * @param user     user name ("" when none)
 * @param password password ("" when none)
 * @param sslmode  disable, allow, prefer, require, verify-ca or verify-full
 */
record DatabaseBinding(String source, String jdbcUrl, String user, String password, String sslmode) {

  static final int DEFAULT_PORT = 5432;
  static final List<String> SSLMODES = List.of("disable", "allow", "prefer", "require", "verify-ca", "verify-full");
  /** URL parameters the binding's TLS decides; a broker's own (a JVM-truststore factory, say) give way. */
  private static final Set<String> TLS_AND_LOGIN_PARAMS = Set.of("user", "password", "ssl", "sslmode", "sslfactory",
      "sslrootcert", "sslcert", "sslkey", "verifyServerCertificate");

  /** A {@code postgres://} or {@code postgresql://} URL (DATABASE_URL and the like); sslrootcert, sslcert, sslkey name files. */
  static DatabaseBinding fromUrl(String source, String url) throws ConfigException {
    if (!url.startsWith("postgres://") && !url.startsWith("postgresql://")) {
      throw new ConfigException(source + " must be a postgres:// URL");
    }
    URI u;
    try {
      u = new URI(url);
    } catch (URISyntaxException e) {
      throw new ConfigException(source + " is not a valid URL: " + e.getReason());
    }
    if (u.getHost() == null || u.getHost().isEmpty()) {
      throw new ConfigException(source + " has no host");
    }
    int port = u.getPort() < 0 ? DEFAULT_PORT : u.getPort();
    if (port < 1 || port > 65535) {
      throw new ConfigException(source + " port must be an integer from 1 to 65535, got \"" + port + "\"");
    }
    String database = u.getRawPath() == null ? "" : u.getRawPath().replaceFirst("^/", "");
    if (database.isEmpty()) {
      throw new ConfigException(source + " has no database name");
    }
    String userinfo = u.getRawUserInfo() == null ? "" : u.getRawUserInfo();
    int colon = userinfo.indexOf(':');
    String user;
    String password;
    try {
      user = URLDecoder.decode(colon < 0 ? userinfo : userinfo.substring(0, colon), StandardCharsets.UTF_8);
      password = colon < 0 ? "" : URLDecoder.decode(userinfo.substring(colon + 1), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(source + " has malformed percent-encoding");
    }
    Map<String, String> query = query(u.getRawQuery());
    String ca = readParam(source, query, "sslrootcert");
    String cert = readParam(source, query, "sslcert");
    String key = readParam(source, query, "sslkey");
    if ((cert == null) != (key == null)) {
      throw new ConfigException(source + ": sslcert and sslkey go together");
    }
    String sslmode = resolveSslmode(source, query.get("sslmode"), ca, "true".equals(query.get("ssl")));
    query.keySet().removeAll(TLS_AND_LOGIN_PARAMS);
    return of(source, "jdbc:postgresql://" + hostPort(u.getHost(), port) + "/" + database, query, user, password, sslmode,
        ca, cert, key);
  }

  private static String readParam(String source, Map<String, String> query, String param) throws ConfigException {
    if (!query.containsKey(param)) {
      return null;
    }
    try {
      return Files.readString(Path.of(query.get(param)));
    } catch (IOException e) {
      throw new ConfigException(source + ": cannot read " + param + " " + query.get(param));
    }
  }

  /**
   * The binding with the URL's own parameters kept and the TLS ones set from sslmode, ca and
   * the client certificate (cert and key PEM, both or neither).
   */
  static DatabaseBinding of(String source, String baseUrl, Map<String, String> params, String user,
      String password, String sslmode, String ca, String cert, String key) throws ConfigException {
    StringBuilder url = new StringBuilder(baseUrl).append("?sslmode=").append(sslmode);
    if (ca != null) {
      url.append("&sslrootcert=").append(writeOnce(source, "ca", ".pem", ca.getBytes(StandardCharsets.UTF_8)));
    }
    if (cert != null) {
      url.append("&sslcert=").append(writeOnce(source, "cert", ".pem", cert.getBytes(StandardCharsets.UTF_8)));
      url.append("&sslkey=").append(writeOnce(source, "key", ".pk8", pkcs8Der(source, key)));
    }
    params.forEach((k, v) -> url.append('&').append(k).append('=').append(v));
    return new DatabaseBinding(source, url.toString(), user, password, sslmode);
  }

  /** The sslmode the broker asks for (see the class comment). */
  static String resolveSslmode(String source, String explicit, String ca, boolean hinted) throws ConfigException {
    String mode = explicit != null ? explicit : ca != null ? "verify-ca" : hinted ? "require" : "disable";
    if (!SSLMODES.contains(mode)) {
      throw new ConfigException(source + ": sslmode must be one of " + String.join(", ", SSLMODES) + ", got \"" + mode + "\"");
    }
    if (mode.equals("require") && ca != null) {
      return "verify-ca";
    }
    if (mode.startsWith("verify-") && ca == null) {
      throw new ConfigException(source + ": sslmode " + mode + " needs a CA certificate (sslrootcert) in the credentials");
    }
    return mode;
  }

  /** A URL query as an ordered map, values percent-decoded ("" for none). */
  static Map<String, String> query(String q) {
    Map<String, String> out = new LinkedHashMap<>();
    if (q == null || q.isEmpty()) {
      return out;
    }
    for (String pair : q.split("&")) {
      int eq = pair.indexOf('=');
      String k = eq < 0 ? pair : pair.substring(0, eq);
      String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      if (!k.isEmpty()) {
        out.put(k, v);
      }
    }
    return out;
  }

  static String hostPort(String host, int port) {
    return (host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + port;
  }

  /** A private key's PEM (PKCS-8 or PKCS#1 RSA, unencrypted) as PKCS-8 DER. */
  static byte[] pkcs8Der(String source, String pem) throws ConfigException {
    java.util.regex.Matcher m = java.util.regex.Pattern
        .compile("-----BEGIN ([A-Z ]*)PRIVATE KEY-----([^-]*)-----END").matcher(pem);
    if (!m.find()) {
      throw new ConfigException(source + ": sslkey is not a PEM private key");
    }
    byte[] der;
    try {
      der = java.util.Base64.getMimeDecoder().decode(m.group(2));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(source + ": sslkey is not valid base64 PEM");
    }
    switch (m.group(1)) {
      case "":
        return der;
      case "RSA ":
        // PrivateKeyInfo { version 0, AlgorithmIdentifier { rsaEncryption, NULL }, OCTET STRING pkcs1 }
        byte[] head = {0x02, 0x01, 0x00, 0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7,
            0x0d, 0x01, 0x01, 0x01, 0x05, 0x00};
        byte[] octets = derTlv(0x04, der);
        byte[] body = new byte[head.length + octets.length];
        System.arraycopy(head, 0, body, 0, head.length);
        System.arraycopy(octets, 0, body, head.length, octets.length);
        return derTlv(0x30, body);
      default:
        throw new ConfigException(source + ": sslkey must be an unencrypted PKCS-8 or RSA PEM key, got "
            + m.group(1) + "PRIVATE KEY");
    }
  }

  private static byte[] derTlv(int tag, byte[] value) {
    int n = value.length;
    byte[] len = n < 0x80 ? new byte[] {(byte) n}
        : n < 0x100 ? new byte[] {(byte) 0x81, (byte) n}
        : n < 0x10000 ? new byte[] {(byte) 0x82, (byte) (n >> 8), (byte) n}
        : new byte[] {(byte) 0x83, (byte) (n >> 16), (byte) (n >> 8), (byte) n};
    byte[] out = new byte[1 + len.length + n];
    out[0] = (byte) tag;
    System.arraycopy(len, 0, out, 1, len.length);
    System.arraycopy(value, 0, out, 1 + len.length, n);
    return out;
  }

  /** Bytes as a file (pgjdbc reads sslrootcert, sslcert, sslkey from files), written once per content, mode 600. */
  static String writeOnce(String source, String kind, String suffix, byte[] content) throws ConfigException {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(content);
      Path file = Path.of(System.getProperty("java.io.tmpdir"),
          "cfscale-" + kind + "-" + HexFormat.of().formatHex(digest).substring(0, 16) + suffix);
      if (!Files.exists(file)) {
        Path tmp = Files.createTempFile(file.getParent(), "cfscale-" + kind + "-", ".tmp",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(tmp, content);
        Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
      return file.toString();
    } catch (IOException | NoSuchAlgorithmException e) {
      throw new ConfigException(source + ": cannot write " + kind + " to a file: " + e.getMessage());
    }
  }

  /** user:***@ jdbc:postgresql://host:port/db?sslmode=... — safe to log. */
  @Override
  public String toString() {
    String auth = user.isEmpty() ? "" : user + (password.isEmpty() ? "" : ":***") + "@";
    return auth + jdbcUrl;
  }
}
