//! Generators for the thesis benchmark families of Petri nets.
