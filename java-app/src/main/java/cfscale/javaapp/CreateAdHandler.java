package cfscale.javaapp;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.eclipse.jetty.http.HttpHeader;

/**
 * POST /ads: a form-urlencoded ad in, {@code 201 {id}} with Location out. Checks in the
 * contract's order: body size ({@link BodyReader}), content type, form decoding, then the field
 * rules.
 */
final class CreateAdHandler implements Endpoint {
  static final String FORM_TYPE = "application/x-www-form-urlencoded";
  private static final Set<String> FIELDS = Set.of("title", "body", "price", "contact");

  private final AdStore store;

  CreateAdHandler(AdStore store) {
    this.store = store;
  }

  @Override
  public Reply handle(Exchange exchange) throws Exception {
    byte[] body = BodyReader.read(exchange.request);
    if (!isForm(exchange.request.getHeaders().get(HttpHeader.CONTENT_TYPE))) {
      throw new HttpError(415, "content type must be " + FORM_TYPE);
    }
    Map<String, String> form = FormParser.parse(body, FIELDS);
    Validation.NewAd ad = Validation.newAd(form);
    long id = store.insert(exchange, ad);
    return new Reply(201, id + "\n", List.of(new Reply.Header("Location", "/ads/" + id)));
  }

  /** The media type without parameters, compared case-insensitively; missing is wrong. */
  static boolean isForm(String contentType) {
    if (contentType == null) {
      return false;
    }
    int semi = contentType.indexOf(';');
    String mediaType = (semi < 0 ? contentType : contentType.substring(0, semi)).trim();
    return mediaType.toLowerCase(Locale.ROOT).equals(FORM_TYPE);
  }
}
