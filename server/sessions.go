package server

import (
	"agentmem/memory"
	"container/list"
	"crypto/rand"
	"fmt"
	"sync"
)

// sessions is the table of live HTTP sessions, and mcp-go's session id
// manager: it issues the ids, knows which are alive, and forgets the ones
// mcp-go ends (DELETE, the idle sweeper, shutdown). Ended ids are not kept:
// an id it does not know, ended or never issued, gets 404 alike. At most
// max sessions live at once; issuing one more ends the one used least
// recently of the user who holds the most (end frees what mcp-go keeps
// for it).
type sessions struct {
	mu     sync.Mutex
	live   map[string]*list.Element
	owners map[string]string // session id -> owner(access) of who opened it
	lru    *list.List        // front: most recently used
	max    int
	end    func(id string)
}

var _ interface {
	Generate() string
	Validate(string) (bool, error)
	Terminate(string) (bool, error)
} = (*sessions)(nil)

func newSessions(max int, end func(string)) *sessions {
	return &sessions{live: map[string]*list.Element{}, owners: map[string]string{}, lru: list.New(), max: max, end: end}
}

const sessionPrefix = "mcp-session-"

// Generate issues a new session id: 130 random bits.
func (s *sessions) Generate() string {
	id := sessionPrefix + rand.Text()
	var evicted []string
	s.mu.Lock()
	s.live[id] = s.lru.PushFront(id)
	for s.lru.Len() > s.max {
		e := s.victim(id)
		old := e.Value.(string)
		s.lru.Remove(e)
		s.forget(old)
		evicted = append(evicted, old)
	}
	s.mu.Unlock()
	for _, old := range evicted {
		s.end(old)
	}
	return id
}

// victim is the session to end when one more than max are live: the one
// used least recently of the user who holds the most, so that one user
// opening sessions without end (one token among many, a client that
// never reuses its session) ends their own, not the other users' (a
// trial found 1,005 initializes with one token ending everyone's). Never
// fresh, the id just issued, whose owner is not known yet. s.mu is held.
func (s *sessions) victim(fresh string) *list.Element {
	held := map[string]int{}
	top := ""
	for _, o := range s.owners {
		held[o]++
		if held[o] > held[top] || held[o] == held[top] && o < top {
			top = o
		}
	}
	for e := s.lru.Back(); e != nil; e = e.Prev() {
		if id := e.Value.(string); id != fresh && s.owners[id] == top {
			return e
		}
	}
	if e := s.lru.Back(); e.Value.(string) != fresh {
		return e
	}
	return s.lru.Back().Prev()
}

// Validate is mcp-go's check of a POST's session; the HTTP layer has
// already answered unknown ids with 404, but an id may end in between.
func (s *sessions) Validate(id string) (isTerminated bool, err error) {
	s.mu.Lock()
	_, ok := s.live[id]
	s.mu.Unlock()
	if !ok {
		return false, fmt.Errorf("unknown session %q", id)
	}
	return false, nil
}

// Terminate forgets id.
func (s *sessions) Terminate(id string) (isNotAllowed bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.live[id]; ok {
		s.lru.Remove(e)
		s.forget(id)
	}
	return false, nil
}

// forget drops id from the table; s.mu is held.
func (s *sessions) forget(id string) {
	delete(s.live, id)
	delete(s.owners, id)
	unregisterSession(id)
}

// bind makes id the session of a, who opened it.
func (s *sessions) bind(id string, a *memory.Access) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.live[id]; ok {
		s.owners[id] = owner(a)
		registerSession(id, a)
	}
}

// known reports whether id is a live session of a's, and marks it used;
// another user's session is not known to a.
func (s *sessions) known(id string, a *memory.Access) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.live[id]
	ok = ok && s.owners[id] == owner(a)
	if ok {
		s.lru.MoveToFront(e)
	}
	return ok
}
