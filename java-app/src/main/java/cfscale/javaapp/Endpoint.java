package cfscale.javaapp;

/**
 * One route's work: turn an exchange into a reply. Client errors are thrown as
 * {@link HttpError}, database trouble as {@link DatabaseUnavailableException} or
 * {@link ResultsUnavailableException}; anything else becomes a 500 in the router's error boundary.
 */
@FunctionalInterface
interface Endpoint {
  Reply handle(Exchange exchange) throws Exception;
}
