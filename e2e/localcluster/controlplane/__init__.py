"""A real control plane as processes on 127.0.0.1: its PKI, components, kwok nodes, LWS, audit."""
