// Package graph is the abstract heterogeneous program graph that the graph
// matching network reads: typed nodes (computing operators and content
// strings) joined by typed directed edges, plus the random-walk positional
// encoding of a merged pair of graphs.
//
// The planner builds a Graph from a normalized plan; this package knows
// nothing about SQL. Type ids are small integers assigned by the caller
// (one vocabulary shared by computing and content nodes).
package graph

import (
	"errors"
	"fmt"
)

// Errors returned by Validate and the helpers in this package.
var (
	ErrEmpty     = errors.New("gmn: graph has no nodes")
	ErrNodeRange = errors.New("gmn: edge or node index out of range")
	ErrEdgeType  = errors.New("gmn: unknown edge type")
	ErrNodeKind  = errors.New("gmn: unknown node kind")
	ErrTypeID    = errors.New("gmn: node type id out of range")
	ErrBadArg    = errors.New("gmn: invalid argument")
)

// Kind says whether a node is an operator or a piece of content.
type Kind uint8

const (
	// Computing nodes are operators (Scan, Join, =, AND, sum, …). They are
	// embedded by type id only.
	Computing Kind = iota
	// Content nodes are table names, column names and literals. They are
	// embedded by type id plus a string encoding of Text.
	Content
)

// EdgeType is the relation an edge carries.
type EdgeType uint8

const (
	PlanTree  EdgeType = iota // parent operator → child operator
	DataFlow                  // producer → consumer of a value
	LogicFlow                 // evaluation order / boolean structure
	// NumEdgeTypes is the number of edge types.
	NumEdgeTypes = 3
)

// Node is one vertex.
type Node struct {
	Kind Kind
	Type int    // type id in [0, number of types)
	Text string // content string; ignored for computing nodes
}

// Edge is a directed typed edge From → To (node indices).
type Edge struct {
	From, To int
	Type     EdgeType
}

// Graph is a program graph. Root is the index of the plan's root node.
// The zero value is an empty graph; build it with AddNode and AddEdge or by
// filling the exported fields directly, then call Validate.
type Graph struct {
	Nodes []Node
	Edges []Edge
	Root  int
}

// AddNode appends n and returns its index.
func (g *Graph) AddNode(n Node) int {
	g.Nodes = append(g.Nodes, n)
	return len(g.Nodes) - 1
}

// AddEdge appends the edge from → to of type t, checking the indices.
func (g *Graph) AddEdge(from, to int, t EdgeType) error {
	if from < 0 || from >= len(g.Nodes) || to < 0 || to >= len(g.Nodes) {
		return fmt.Errorf("%w: edge %d→%d with %d nodes", ErrNodeRange, from, to, len(g.Nodes))
	}
	if t >= NumEdgeTypes {
		return fmt.Errorf("%w: %d", ErrEdgeType, t)
	}
	g.Edges = append(g.Edges, Edge{From: from, To: to, Type: t})
	return nil
}

// Validate checks that g is non-empty, that every index is in range and
// that every type id is below numTypes.
func (g *Graph) Validate(numTypes int) error {
	if g == nil || len(g.Nodes) == 0 {
		return ErrEmpty
	}
	if g.Root < 0 || g.Root >= len(g.Nodes) {
		return fmt.Errorf("%w: root %d with %d nodes", ErrNodeRange, g.Root, len(g.Nodes))
	}
	for i, n := range g.Nodes {
		if n.Kind > Content {
			return fmt.Errorf("%w: node %d kind %d", ErrNodeKind, i, n.Kind)
		}
		if n.Type < 0 || n.Type >= numTypes {
			return fmt.Errorf("%w: node %d type %d, vocabulary %d", ErrTypeID, i, n.Type, numTypes)
		}
	}
	for i, e := range g.Edges {
		if e.From < 0 || e.From >= len(g.Nodes) || e.To < 0 || e.To >= len(g.Nodes) {
			return fmt.Errorf("%w: edge %d is %d→%d with %d nodes", ErrNodeRange, i, e.From, e.To, len(g.Nodes))
		}
		if e.Type >= NumEdgeTypes {
			return fmt.Errorf("%w: edge %d type %d", ErrEdgeType, i, e.Type)
		}
	}
	return nil
}

// Clone returns a deep copy of g.
func (g *Graph) Clone() *Graph {
	return &Graph{
		Nodes: append([]Node(nil), g.Nodes...),
		Edges: append([]Edge(nil), g.Edges...),
		Root:  g.Root,
	}
}

// Pair names node A of the first graph and node B of the second.
type Pair struct{ A, B int }

// ContentSeeds returns the pairs of content nodes of a and b that have the
// same type id and the same text, in order of a's nodes then b's. These are
// the usual seed pairs for PairPositional (identical table and column names).
func ContentSeeds(a, b *Graph) []Pair {
	type key struct {
		typ  int
		text string
	}
	idx := make(map[key][]int)
	for j, n := range b.Nodes {
		if n.Kind == Content {
			k := key{n.Type, n.Text}
			idx[k] = append(idx[k], j)
		}
	}
	var out []Pair
	for i, n := range a.Nodes {
		if n.Kind != Content {
			continue
		}
		for _, j := range idx[key{n.Type, n.Text}] {
			out = append(out, Pair{A: i, B: j})
		}
	}
	return out
}
