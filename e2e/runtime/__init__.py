"""Tests of the manager's generic runtime against a real apiserver: cache, client, leader
election, events, discovery, the sample controller.
"""
