package daptest

// Requests by name, with the arguments a test usually gives; each returns the request's seq.

// InitializeRequest sends initialize as VS Code does (lines and columns from 1, progress shown).
func (c *Client) InitializeRequest() int {
	return c.Send("initialize", map[string]any{"clientID": "daptest", "adapterID": "cmc", "linesStartAt1": true,
		"columnsStartAt1": true, "pathFormat": "path", "supportsVariablePaging": true,
		"supportsVariableType": true, "supportsProgressReporting": true})
}

func (c *Client) LaunchRequest(args map[string]any) int { return c.Send("launch", args) }

func (c *Client) ConfigurationDoneRequest() int { return c.Send("configurationDone", nil) }

func (c *Client) ThreadsRequest() int { return c.Send("threads", nil) }

func (c *Client) StackTraceRequest(thread, start, levels int) int {
	return c.Send("stackTrace", map[string]any{"threadId": thread, "startFrame": start, "levels": levels})
}

func (c *Client) ScopesRequest(frame int) int {
	return c.Send("scopes", map[string]any{"frameId": frame})
}

func (c *Client) VariablesRequest(ref int) int {
	return c.Send("variables", map[string]any{"variablesReference": ref})
}

// VariablesPage asks for count children from start (filter: "indexed", "named" or "").
func (c *Client) VariablesPage(ref int, filter string, start, count int) int {
	args := map[string]any{"variablesReference": ref, "start": start, "count": count}
	if filter != "" {
		args["filter"] = filter
	}
	return c.Send("variables", args)
}

func (c *Client) NextRequest(thread int) int {
	return c.Send("next", map[string]any{"threadId": thread})
}

func (c *Client) StepInRequest(thread int) int {
	return c.Send("stepIn", map[string]any{"threadId": thread})
}

func (c *Client) StepOutRequest(thread int) int {
	return c.Send("stepOut", map[string]any{"threadId": thread})
}

func (c *Client) StepBackRequest(thread int) int {
	return c.Send("stepBack", map[string]any{"threadId": thread})
}

func (c *Client) ContinueRequest(thread int) int {
	return c.Send("continue", map[string]any{"threadId": thread})
}

func (c *Client) ReverseContinueRequest(thread int) int {
	return c.Send("reverseContinue", map[string]any{"threadId": thread})
}

// SetBreakpointsRequest sets source breakpoints at lines of a file.
func (c *Client) SetBreakpointsRequest(path string, lines ...int) int {
	bps := make([]map[string]any, len(lines))
	for i, l := range lines {
		bps[i] = map[string]any{"line": l}
	}
	return c.SetBreakpointsWith(path, bps)
}

// SetBreakpointsWith sets source breakpoints given as DAP SourceBreakpoint objects.
func (c *Client) SetBreakpointsWith(path string, bps []map[string]any) int {
	return c.Send("setBreakpoints", map[string]any{"source": map[string]any{"path": path}, "breakpoints": bps})
}

func (c *Client) SetFunctionBreakpointsRequest(bps ...map[string]any) int {
	if bps == nil {
		bps = []map[string]any{}
	}
	return c.Send("setFunctionBreakpoints", map[string]any{"breakpoints": bps})
}

func (c *Client) DataBreakpointInfoRequest(ref int, name string) int {
	return c.Send("dataBreakpointInfo", map[string]any{"variablesReference": ref, "name": name})
}

// SetDataBreakpointsRequest sets data breakpoints on dataIds.
func (c *Client) SetDataBreakpointsRequest(ids ...string) int {
	bps := make([]map[string]any, len(ids))
	for i, id := range ids {
		bps[i] = map[string]any{"dataId": id, "accessType": "write"}
	}
	return c.Send("setDataBreakpoints", map[string]any{"breakpoints": bps})
}

func (c *Client) EvaluateRequest(expr string, frame int, context string) int {
	return c.Send("evaluate", map[string]any{"expression": expr, "frameId": frame, "context": context})
}

func (c *Client) ExceptionInfoRequest(thread int) int {
	return c.Send("exceptionInfo", map[string]any{"threadId": thread})
}

func (c *Client) RestartRequest(args map[string]any) int {
	if args == nil {
		return c.Send("restart", nil)
	}
	return c.Send("restart", map[string]any{"arguments": args})
}

func (c *Client) CancelRequest(progressID string) int {
	return c.Send("cancel", map[string]any{"progressId": progressID})
}

func (c *Client) TerminateRequest() int { return c.Send("terminate", nil) }

func (c *Client) DisconnectRequest() int { return c.Send("disconnect", nil) }
