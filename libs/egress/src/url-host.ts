/** A URL's hostname as resolvers and sockets take it: IPv6 literals lose their brackets. */
export function urlHost(url: URL): string {
  const { hostname } = url;
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}
