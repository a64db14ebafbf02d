package host

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sync"
)

// scripted is what both scripted models are: a server on a free loopback
// port, and the log of the requests it received.
type scripted[R any] struct {
	srv      *http.Server
	mu       sync.Mutex
	requests []R
}

// start serves mux on a free loopback port, every other path answered
// 404 with notFound, and returns the server's address as a URL.
func (s *scripted[R]) start(mux *http.ServeMux, notFound string) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, notFound, http.StatusNotFound)
	})
	s.srv = &http.Server{Handler: mux}
	go s.srv.Serve(ln)
	return "http://" + ln.Addr().String(), nil
}

// Close stops the server.
func (s *scripted[R]) Close() error { return s.srv.Close() }

// Requests returns a copy of every request received so far.
func (s *scripted[R]) Requests() []R {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]R(nil), s.requests...)
}

// record reads and decodes r's body into req, logs it and returns how
// many requests came so far; on a body that is not JSON it answers 400
// with invalid(the decoding error) and returns 0.
func (s *scripted[R]) record(w http.ResponseWriter, r *http.Request, req *R, raw *[]byte, invalid func(string) string) int {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return 0
	}
	if err := json.Unmarshal(body, req); err != nil {
		http.Error(w, invalid("scripted model: "+err.Error()), http.StatusBadRequest)
		return 0
	}
	*raw = body
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, *req)
	return len(s.requests)
}
