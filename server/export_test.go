package server

// ServeHTTPGrace is ServeHTTP with another shutdown grace, for tests.
var ServeHTTPGrace = serveHTTP
