package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/memory"
)

func todayTool() mcp.Tool {
	return mcp.NewTool("today",
		mcp.WithDescription("The current date, weekday and time in the server's time zone. Use it to answer questions relative to now (\"how long ago\", \"next week\")."),
		mcp.WithOutputSchema[memory.Today](),
		annotate("Today's date", true, false, true),
	)
}

func (h handlers) today(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	d := memory.TodayAt(h.svc.Now())
	return mcp.NewToolResultStructured(d, d.Text()+"."), nil
}
