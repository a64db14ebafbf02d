package server

// ServeHTTPGrace is ServeHTTP with another shutdown grace, for tests.
var ServeHTTPGrace = serveHTTP

// ServeSocketGrace is ServeSocket with another shutdown grace, for tests.
var ServeSocketGrace = serveSocket
